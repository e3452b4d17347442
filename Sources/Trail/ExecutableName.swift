#if canImport(Glibc)
internal import Glibc
#endif

/// The executable's file name, as Foundation's `ProcessInfo.processName` gave it on Linux, which named the logs
/// before: the last component of /proc/self/exe's target, so with links resolved and whatever argv[0] says; ""
/// when /proc cannot tell.
enum ExecutableName {
    static func current() -> String {
        var buffer = [UInt8](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = buffer.withUnsafeMutableBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { readlink("/proc/self/exe", $0.baseAddress!, $0.count - 1) }
        }
        guard length > 0 else { return "" }
        let path = buffer[..<length]
        let start = path.lastIndex(of: UInt8(ascii: "/")).map { $0 + 1 } ?? 0
        return String(decoding: path[start...], as: UTF8.self)
    }
}
