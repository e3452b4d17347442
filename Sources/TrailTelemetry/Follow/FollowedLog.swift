#if canImport(Glibc)
import Glibc
#endif

/// One log file being read (`LogFollow`), what of it waits to be sent, and the offset that a restart would read
/// from.
final class FollowedLog {
    let descriptor: Int32
    let identity: String
    var name: String
    var offset: UInt64
    /// The end of the last line read outside a crash block: every record of the lines before it is gathered.
    var committed: UInt64
    var partial: [UInt8] = []
    /// Inside the rest of a line already cut at a MiB.
    var skipping = false
    var parser: LogRecordParser
    let gathered: Gathered
    var rotatedSince: Double?
    var done = false

    /// Records gathered since the last delivery, grouped by resource in order.
    final class Gathered {
        var groups: [(resource: ProcessResource, records: [LogRecord])] = []
        var count = 0
    }

    init(descriptor: Int32, identity: String, path: String, offset: UInt64, export: LogExport) {
        self.descriptor = descriptor
        self.identity = identity
        name = path
        self.offset = offset
        committed = offset
        let gathered = Gathered()
        self.gathered = gathered
        parser = LogRecordParser(export: export) { resource, record in
            if gathered.groups.last?.resource == resource {
                gathered.groups[gathered.groups.count - 1].records.append(record)
            } else {
                gathered.groups.append((resource, [record]))
            }
            gathered.count += 1
        }
        parser.beginFile(path)
    }

    deinit { close(descriptor) }

    /// Parses `bytes` (read at `offset`): whole lines now, a partial one kept for the next read.
    func take(_ bytes: UnsafeRawBufferPointer) throws {
        var start = 0
        for index in 0 ..< bytes.count where bytes[index] == 10 {
            if skipping {
                skipping = false
            } else if partial.isEmpty {
                try line(UnsafeRawBufferPointer(rebasing: bytes[start ..< index]))
            } else {
                partial += bytes[start ..< index]
                try partial.withUnsafeBytes { try line($0) }
                partial.removeAll(keepingCapacity: true)
            }
            offset += UInt64(index + 1 - start)
            if !parser.inBlock { committed = offset }
            start = index + 1
        }
        if !skipping { partial += bytes[start...] }
        offset += UInt64(bytes.count - start)
        if partial.count > 1 << 20 {  // a line longer than a MiB is cut there, the rest dropped (as LogLines does)
            try partial.withUnsafeBytes { try line(UnsafeRawBufferPointer(rebasing: $0[..<(1 << 20)])) }
            partial.removeAll(keepingCapacity: true)
            skipping = true
        }
    }

    /// The end of the file: a last line without a newline, and a crash block cut short.
    func finish() throws {
        if !partial.isEmpty, !skipping { try partial.withUnsafeBytes { try line($0) } }
        partial.removeAll()
        try parser.endBlock()
        committed = offset
        done = true
    }

    private func line(_ bytes: UnsafeRawBufferPointer) throws {
        var line = bytes.bindMemory(to: UInt8.self)
        if line.last == 13 { line = UnsafeBufferPointer(rebasing: line.dropLast()) }
        try parser.take(line)
    }
}
