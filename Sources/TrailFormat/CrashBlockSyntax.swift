/// The literal text of a crash block (Docs/crash-format.md): its markers, line prefixes and field keys. The
/// runtime's C writer (crash_block.c, images.c) spells the same in Sources/CTrailShim/trail_format.h;
/// TrailFormatTests checks that the two agree.
///
/// ```
/// === TRAIL CRASH BEGIN v1 ===        (ERROR for a non-fatal Trail.report)
/// time: ...                           fields: `key: value`
/// frame 0 0x000055a705daf267 pc       frames: index, address, pc or ra
/// image 0x55a705d9e000 0x55a705e5c148 81b76e... /path   images: load bias, end, build ID (or -), path
/// crumb -100.886us enter Site @ File.swift:30           breadcrumbs: offset, event, site
/// open 0 Site @ File.swift:30                           open calls: depth, site
/// === TRAIL CRASH END ===
/// ```
public enum CrashBlockSyntax {
    /// The block format this reader reads and the runtime writes.
    public static var version: Int { 1 }

    /// Both markers start with this, then the kind: `=== TRAIL CRASH BEGIN v1 ===`, `=== TRAIL CRASH END ===`.
    public static var markerOpen: StaticString { "=== TRAIL " }
    /// After the kind of a begin marker: the word, then ` v<version>` and `markerClose`.
    public static var beginWord: StaticString { "BEGIN" }
    public static var markerClose: StaticString { " ===" }
    /// After the kind of an end marker.
    public static var endTail: StaticString { " END ===" }

    /// `=== TRAIL CRASH BEGIN`: how any version's begin marker of a kind starts.
    public static func beginPrefix(_ kind: CrashBlock.Kind) -> String {
        "\(markerOpen)\(kind.rawValue) \(beginWord)"
    }

    /// `=== TRAIL CRASH BEGIN v1 ===`.
    public static func beginLine(_ kind: CrashBlock.Kind, version: Int = version) -> String {
        "\(beginPrefix(kind)) v\(version)\(markerClose)"
    }

    /// `=== TRAIL CRASH END ===`.
    public static func endLine(_ kind: CrashBlock.Kind) -> String { "\(markerOpen)\(kind.rawValue)\(endTail)" }

    /// The keys of `key: value` lines, in the order the runtime writes them.
    public static let fieldKeys = ["time", "app", "pid", "exe", "signal", "reason", "thread", "trace"]
    /// Between a field's key and its value.
    public static var fieldSeparator: StaticString { ": " }

    /// `frame <index> <address> pc|ra`.
    public static var frame: StaticString { "frame " }
    /// The interrupted instruction.
    public static var programCounter: StaticString { "pc" }
    /// A return address: the call is the instruction before it.
    public static var returnAddress: StaticString { "ra" }
    /// `image <load bias> <end> <build ID> <path>`.
    public static var image: StaticString { "image " }
    /// The build ID of an object without one.
    public static var noBuildID: StaticString { "-" }
    /// `crumb <microseconds before the crash> <event> <site>`.
    public static var crumb: StaticString { "crumb " }
    /// A breadcrumb's events.
    public static let breadcrumbEvents = ["enter", "exit", "async-enter", "async-exit"]
    /// `open <depth> <site>`, outermost first.
    public static var open: StaticString { "open " }

    /// The words of a `signal:` value after number and name: `11 SIGSEGV code 1 SEGV_MAPERR address 0x8`.
    public static var signalCode: StaticString { "code" }
    public static var signalAddress: StaticString { "address" }

    /// The values of the `trace:` field.
    public static let traceModes = ["off", "log", "record"]

    /// The crash block that `text` starts with (as a crash marker's offset points at one), through its end
    /// line and a newline, or all of `text` when it has no end line; nil when `text` does not start with a
    /// crash block's begin marker.
    public static func leadingCrashBlock(_ text: String) -> String? {
        let utf8 = text.utf8
        guard utf8.starts(with: beginPrefix(.crash).utf8) else { return nil }
        let end = endLine(.crash).utf8
        var index = utf8.startIndex
        while index != utf8.endIndex {
            if utf8[index...].starts(with: end) {
                let upper = utf8.index(index, offsetBy: end.count)
                return String(decoding: utf8[..<upper], as: UTF8.self) + "\n"
            }
            index = utf8.index(after: index)
        }
        return text
    }
}
