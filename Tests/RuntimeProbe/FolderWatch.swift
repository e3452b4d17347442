import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Measures a log folder's size every `every` microseconds on a thread of its own, counting each file once by
/// inode (a listing taken while a file is renamed can name it twice); `stop()` gives the largest size seen.
final class FolderWatch: @unchecked Sendable {
    private var largest = 0, done = false
    private let lock = NSLock()

    init(_ directory: String, every interval: UInt32) {
        Thread { [self] in
            while !lock.withLock({ done }) {
                var sizes: [UInt: Int] = [:]
                for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
                where name.hasSuffix(".log") {
                    var info = stat()
                    if lstat(directory + "/" + name, &info) == 0 { sizes[UInt(info.st_ino)] = Int(info.st_size) }
                }
                let total = sizes.values.reduce(0, +)
                lock.withLock { largest = max(largest, total) }
                usleep(interval)
            }
        }.start()
    }

    func stop() -> Int {
        usleep(20_000)  // one more look after the last write
        return lock.withLock {
            done = true
            return largest
        }
    }
}
