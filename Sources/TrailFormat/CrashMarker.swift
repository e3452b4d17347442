/// The file beside the log that records that a run crashed (Docs/crash-format.md), `<appName>.<pid>.crash`
/// (one per crashed process; `<appName>.crash` from older runtimes is still read):
///
/// ```
/// log=/var/log/app/app.log
/// offset=84
/// signal=11
/// pid=11987
/// time=2026-12-02T13:37:55.776098Z
/// ```
///
/// The runtime's signal handler writes it (crash_block.c formats, crash_files.c writes; keys from
/// Sources/CTrailShim/trail_format.h); the next launch reads it and, once the log has rotated, writes it again
/// pointing at the rotated file.
public struct CrashMarker: Sendable, Equatable {
    /// The log file that holds the crash block.
    public var log: String
    /// Where the block starts in that file.
    public var offset: Int?
    /// The signal; nil for a fatal `Trail.report` (written as 0).
    public var signal: Int32?
    public var pid: Int?
    public var time: String?

    /// The marker's file name is the app's name and this.
    public static var fileExtension: String { ".crash" }
    /// A block written in console mode goes to the terminal and, to be kept, to `<appName>.<pid>` and this.
    /// Not `.log`: the rotated-log readers take `<appName>.<N>.log` for a rotated log.
    public static var blockFileExtension: String { ".block" }

    /// Whether `name` is a marker of `app`: `<app>.<pid>.crash`, or `<app>.crash`.
    public static func isMarkerName(_ name: String, app: String) -> Bool {
        guard name.hasPrefix(app), name.hasSuffix(fileExtension) else { return false }
        let middle = name.dropFirst(app.count).dropLast(fileExtension.count)
        if middle.isEmpty { return true }
        guard middle.first == ".", middle.count > 1 else { return false }
        return middle.dropFirst().allSatisfy { $0 >= "0" && $0 <= "9" }
    }

    /// Between a key and its value.
    public static var separator: Character { "=" }

    public enum Key: String, CaseIterable, Sendable {
        case log, offset, signal, pid, time
    }

    public init(log: String, offset: Int?, signal: Int32?, pid: Int?, time: String?) {
        self.log = log
        self.offset = offset
        self.signal = signal
        self.pid = pid
        self.time = time
    }

    /// Reads a marker's text: `key=value` lines, the last of a key winning, other lines ignored. Nil without
    /// a `log` line; a value that is not a number counts as missing.
    public init?(parsing text: String) {
        var fields: [String: String] = [:]
        for line in text.split(separator: "\n") {
            guard let equals = line.firstIndex(of: Self.separator) else { continue }
            fields[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        guard let log = fields[Key.log.rawValue] else { return nil }
        self.log = log
        offset = fields[Key.offset.rawValue].flatMap { Int($0) }
        signal = fields[Key.signal.rawValue].flatMap { Int32($0) }.flatMap { $0 == 0 ? nil : $0 }
        pid = fields[Key.pid.rawValue].flatMap { Int($0) }
        time = fields[Key.time.rawValue]
    }

    /// The marker's text, as the runtime writes it (a missing number as 0, a missing time empty).
    public var text: String {
        let values = [log, String(offset ?? 0), String(signal ?? 0), String(pid ?? 0), time ?? ""]
        var out = ""
        for (key, value) in zip(Key.allCases, values) { out += "\(key.rawValue)\(Self.separator)\(value)\n" }
        return out
    }
}
