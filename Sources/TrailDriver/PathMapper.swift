/// Replaces one path prefix with another in a stream of bytes, chunk by chunk: what the copy's build and tests
/// print names the copy (`<package>/.build/trail-shadow/package/...`), and the user's editor must open their file,
/// at the same line since the copy keeps lines. Holds back at most the needle's length less one byte, the end of
/// a chunk that may be the start of a path the next chunk finishes; nothing else is buffered.
public struct PathMapper {
    private let from: [UInt8]
    private let to: [UInt8]
    private var pending: [UInt8] = []

    public init(from: String, to: String) {
        self.from = Array(from.utf8)
        self.to = Array(to.utf8)
    }

    /// The mapped bytes of `chunk` that can be written now.
    public mutating func map(_ chunk: UnsafeRawBufferPointer) -> [UInt8] {
        guard !from.isEmpty else { return Array(chunk) }
        var data = pending
        data.append(contentsOf: chunk)
        pending.removeAll(keepingCapacity: true)
        var output: [UInt8] = []
        output.reserveCapacity(data.count)
        var index = 0
        let first = from[0]
        while index < data.count {
            let byte = data[index]
            guard byte == first else {
                output.append(byte)
                index += 1
                continue
            }
            var matched = 1
            while matched < from.count, index + matched < data.count, data[index + matched] == from[matched] {
                matched += 1
            }
            if matched == from.count {
                output.append(contentsOf: to)
                index += matched
            } else if index + matched == data.count {
                pending.append(contentsOf: data[index...])  // may be finished by the next chunk
                break
            } else {
                output.append(byte)
                index += 1
            }
        }
        return output
    }

    /// What is held back, at the end of the stream.
    public mutating func finish() -> [UInt8] {
        defer { pending.removeAll() }
        return pending
    }
}

/// Whole lines of a stream, for a reader that watches for some (XCTest's results): a line longer than `limit` is
/// cut, since no line worth reading is that long and a program may print gigabytes without a newline.
public struct LineSplitter {
    private var line: [UInt8] = []
    private var overflowed = false
    private let limit: Int

    public init(limit: Int = 4096) { self.limit = limit }

    public mutating func feed(_ bytes: [UInt8], _ each: (String) -> Void) {
        for byte in bytes {
            if byte == UInt8(ascii: "\n") {
                if !overflowed { each(String(decoding: line, as: UTF8.self)) }
                line.removeAll(keepingCapacity: true)
                overflowed = false
            } else if line.count < limit {
                line.append(byte)
            } else {
                overflowed = true
            }
        }
    }
}
