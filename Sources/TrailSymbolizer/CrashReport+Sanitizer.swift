import TrailFormat

#if canImport(Glibc)
import Glibc
#endif

/// Masking who ran the program: a report goes to other people.
extension CrashReport {
    /// Masks the home folder as `~` and the user's name as `<user>`.
    static func sanitize(_ text: String) -> String {
        var out = text
        let user =
            getpwuid(getuid()).flatMap { $0.pointee.pw_name.map { String(cString: $0) } }
            ?? (getenv("USER").map { String(cString: $0) })
        let home =
            getenv("HOME").map { String(cString: $0) }
            ?? getpwuid(getuid()).flatMap { $0.pointee.pw_dir.map { String(cString: $0) } }
        if let home, home.count > 1 { out = out.replacingAll(home, with: "~") }
        out = out.replacingAll("/home/", with: "/home/", maskingNextComponentAs: "<user>")
        if let user, user.count >= 3, user != "root" { out = out.replacingAll(user, with: "<user>") }
        return out
    }
}

extension String {
    func replacingAll(_ target: String, with replacement: String) -> String {
        guard !target.isEmpty else { return self }
        var result = ""
        var rest = Substring(self)
        while let range = rest.range(of: target) {
            result += rest[..<range.lowerBound] + replacement
            rest = rest[range.upperBound...]
        }
        return result + rest
    }

    /// `/home/alice/x` -> `/home/<user>/x` for every `/home/` prefix.
    func replacingAll(_ prefix: String, with kept: String, maskingNextComponentAs mask: String) -> String {
        var result = ""
        var rest = Substring(self)
        while let range = rest.range(of: prefix) {
            result += rest[..<range.lowerBound] + kept
            rest = rest[range.upperBound...]
            let component = rest.prefix { $0 != "/" && $0 != " " && $0 != "\n" && $0 != "\"" }
            if !component.isEmpty, component != "~" {
                result += mask
                rest = rest.dropFirst(component.count)
            }
        }
        return result + rest
    }

    func range(of target: String) -> Range<String.Index>? { Substring(self).range(of: target) }

}

extension Substring {
    func range(of target: String) -> Range<String.Index>? {
        guard let first = target.first else { return nil }
        var index = startIndex
        while index < endIndex {
            if self[index] == first, self[index...].hasPrefix(target) {
                return index ..< self.index(index, offsetBy: target.count)
            }
            index = self.index(after: index)
        }
        return nil
    }
}
