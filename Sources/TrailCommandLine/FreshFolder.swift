#if canImport(Glibc)
import Glibc
#endif

/// A new folder for one run's traces, named by the local time: `<parent>/<prefix><yyyyMMdd-HHmmss>`, with `-2`,
/// `-3`... when that is taken. `mkdir` decides, so two runs in the same second never share one. The parent is
/// made if missing. The path, or a message naming the folder and the reason.
public func makeFreshFolder(in parent: String, prefix: String = "") -> Result<String, VerbFailure> {
    var now = time(nil)
    var parts = tm()
    localtime_r(&now, &parts)
    var buffer = [CChar](repeating: 0, count: 32)
    let length = strftime(&buffer, buffer.count, "%Y%m%d-%H%M%S", &parts)
    let stamp = String(decoding: buffer[0 ..< length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    if mkdir(parent, 0o755) != 0, errno != EEXIST {
        return .failure(.input("\(parent): cannot make the trace folder: \(String(cString: strerror(errno)))"))
    }
    var path = parent + "/" + prefix + stamp
    var suffix = 1
    while mkdir(path, 0o755) != 0 {
        guard errno == EEXIST else {
            return .failure(.input("\(path): cannot make the trace folder: \(String(cString: strerror(errno)))"))
        }
        suffix += 1
        path = parent + "/" + prefix + stamp + "-\(suffix)"
    }
    return .success(path)
}
