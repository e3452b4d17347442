import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// One slot per input, written by whichever worker handles that input.
final class ResultSlots<Value>: @unchecked Sendable {
    private var values: [Value?]
    private let lock = NSLock()

    init(count: Int) { values = Array(repeating: nil, count: count) }

    subscript(index: Int) -> Value? {
        get { lock.withLock { values[index] } }
        set { lock.withLock { values[index] = newValue } }
    }
}

/// Indices of `paths`, largest file first: the big files start early, so no core idles at the end.
public func largestFirst(_ paths: [String]) -> [Int] {
    let sizes = paths.map { path -> Int in
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_size) : 0
    }
    return sizes.indices.sorted { sizes[$0] > sizes[$1] }
}

/// Runs `body` for every index on `jobs` threads, each taking the next index until none is left.
public func parallelForEach(_ count: Int, jobs: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let counter = Counter()
    @Sendable func take() -> Int? {
        let index = counter.next()
        return index < count ? index : nil
    }
    let workers = min(jobs, count)
    guard workers > 1 else {
        for index in 0 ..< count { body(index) }
        return
    }
    let group = DispatchGroup()
    for _ in 0 ..< workers {
        group.enter()
        let thread = Thread {
            while let index = take() { body(index) }
            group.leave()
        }
        thread.stackSize = 16 << 20  // Deeply nested sources recurse deeply in the parser.
        thread.start()
    }
    group.wait()
}

final class Counter: @unchecked Sendable {
    private var value = 0
    private let lock = NSLock()

    func next() -> Int {
        lock.withLock {
            defer { value += 1 }
            return value
        }
    }
}
