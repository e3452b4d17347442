import TrailFormat

/// The one string literal each trace call carries: `Module.Type.method(x:) @ Module/File.swift:12`.
/// The runtime keeps only its address on the hot path and splits it at the last ` @ ` when displaying.
enum SiteName {
    static func format(name: String, file: String, line: Int) -> String {
        SiteName.format(name: name, file: file, line: line)
    }
}
