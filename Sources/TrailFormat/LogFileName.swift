/// How the files of a log folder are named (Docs/log-format.md, "Files in the folder"), decoded here only: `<app>.log` is the
/// file being written, and at rotation it becomes `<app>.<N>.log`, N rising from 1, so a higher N is newer and
/// the current file is the newest of all.
public enum LogFileName {
    /// `app.log` (the current file), or `app.3.log`.
    public static func name(stem: String, sequence: Int? = nil) -> String {
        sequence.map { "\(stem).\($0).log" } ?? "\(stem).log"
    }

    /// `app.log` -> ("app", nil), `app.3.log` -> ("app", 3); nil for a name that is not `*.log`. A stem may hold
    /// dots (`my.app.log`); only a last part of 1 to 18 digits, not zero, is a sequence.
    public static func parse(_ name: String) -> (stem: String, sequence: Int?)? {
        guard name.hasSuffix(".log"), name.utf8.count > 4 else { return nil }
        let stem = name.dropLast(4)
        if let dot = stem.lastIndex(of: "."), case let digits = stem[stem.index(after: dot)...],
            (1 ... 18).contains(digits.utf8.count),
            digits.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let sequence = Int(digits), sequence > 0,
            dot > stem.startIndex
        {
            return (String(stem[..<dot]), sequence)
        }
        return (String(stem), nil)
    }

    /// Oldest first: by stem, then rotated files by sequence, then the current file.
    public static func order(_ name: String) -> (stem: String, number: Int) {
        guard let parsed = parse(name) else { return (name, Int.max) }
        return (parsed.stem, parsed.sequence ?? Int.max)
    }
}
