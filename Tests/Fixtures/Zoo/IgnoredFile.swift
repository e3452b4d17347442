// trail:ignore-file
enum IgnoredFile {
    static func value() -> Int { 99 }
}
