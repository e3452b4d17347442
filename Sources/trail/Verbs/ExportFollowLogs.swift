import Foundation
import TrailCommandLine
import TrailFormat
import TrailSymbolizer
import TrailTelemetry

#if canImport(Glibc)
import Glibc
#endif

let followLogsDetails = """
    --otlp-logs --follow: keep reading log folders (or files) while they are written and send each line within \
    about a second. A rotated file is read to its end under its new name, and a deleted one through the \
    descriptor held; a file cut back to nothing (copytruncate) is read again from its start. The cursor (--cursor, \
    else .trail-follow-logs.json in the first folder) records, per file, the offset the receiver took.
    """

/// `trail export --otlp-logs --follow`: a sidecar that ships log lines as they are written, rotations included.
func followLogs(_ arguments: ParsedArguments) throws -> Int32 {
    guard arguments.value("output") == nil else {
        throw UsageError(
            description:
                "--follow sends to an OTLP endpoint (--endpoint or OTEL_EXPORTER_OTLP_LOGS_ENDPOINT) or standard output, not to a file"
        )
    }
    guard !arguments.positionals.isEmpty else {
        throw UsageError(description: "name the log folders or log files to follow")
    }
    let destination = try OTLPDestination(arguments, signal: .logs)
    var follow = try LogFollow(destination: destination, arguments: arguments)
    try follow.run()
    return 0
}

/// The follow loop for logs: files found by (device, inode), so that a rename is no new file; lines read a MiB at
/// a time per file, records sent every second (or when a batch is full), the cursor saved after each delivery.
struct LogFollow {
    let destination: OTLPDestination
    /// Folders, and per folder the one app to follow (a file was named) or nil for all.
    let roots: [(folder: String, stem: String?)]
    var cursor: FollowCursor
    let cursorPath: String
    var export: LogExport
    /// Followed files in the order found (oldest rotation first), by "device:inode".
    var files: [String: FollowedLog] = [:]
    var order: [String] = []
    /// Files the cursor has as sent whole, by key, with the path they had: not read again while it stays so.
    var skipped: [String: String] = [:]
    var pending = 0
    var lastFlush = monotonicSeconds()
    var sent = 0
    /// Per app, the highest rotation number seen: a later one past it by more than one means files were rotated
    /// and pruned before they could be read (while the receiver was down, say). Counted and said.
    var newestRotation: [String: Int] = [:]
    var lostFiles = 0

    /// One log file being read, what of it waits to be sent, and the offset that a restart would read from.
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

    init(destination: OTLPDestination, arguments: ParsedArguments) throws {
        self.destination = destination
        var roots: [(String, String?)] = []
        for given in arguments.positionals {
            var info = stat()
            guard stat(given, &info) == 0 else { throw VerbFailure.input("\(given): no such log file or folder") }
            if info.st_mode & S_IFMT == S_IFDIR {
                roots.append((given, nil))
            } else {
                let name = (given as NSString).lastPathComponent
                let folder = (given as NSString).deletingLastPathComponent
                roots.append(
                    (folder.isEmpty ? "." : folder, name.hasSuffix(".log") ? LogLines.rotationOrder(name).stem : name))
            }
        }
        self.roots = roots
        let firstFolder = arguments.positionals.first { isFolder($0) }
        cursorPath =
            arguments.value("cursor")
            ?? (firstFolder.map { $0 + "/.trail-follow-logs.json" } ?? arguments.positionals[0] + ".follow.json")
        cursor = try FollowCursor(path: cursorPath)
        export = LogExport(
            serviceName: destination.settings.serviceName, resourceAttributes: destination.settings.resourceAttributes)
        let symbolizer = CrashSymbolizer(debugDirectories: arguments.all("debug-dir"))
        export.stacktrace = { block in CrashOutputFormat.stackText(symbolizer.symbolize(block)) }
    }

    mutating func run() throws {
        destination.keepTrying()
        Stop.install()
        printError(
            "trail export: following \(roots.map { $0.stem.map { "\($0).log" } ?? $0.folder }.joined(separator: ", ")) to \(destination.name); cursor \(cursorPath)"
        )
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while !Stop.requested {
            let listed = list()
            discover(listed)
            var progress = 0
            for key in order {
                guard let file = files[key], !file.done else { continue }
                progress += try poll(file, key: key, listed: listed, buffer: &buffer)
            }
            if pending >= destination.batch || (pending > 0 && monotonicSeconds() - lastFlush >= 1)
                || files.values.contains(where: \.done)
            {
                try flush(listed)
            }
            if progress == 0 { usleep(200_000) }
        }
        try flush(list())
        printError(
            "trail export: \(sent) log records sent\(lostFiles > 0 ? ", \(lostFiles) rotated files lost unread" : ""); cursor saved in \(cursorPath)"
        )
    }

    /// The regular `*.log` files under the roots, oldest rotation first per app, each with its "device:inode".
    struct Listing {
        var files: [(key: String, path: String)] = []
        var pathOf: [String: String] = [:]
    }

    func list() -> Listing {
        var found = Listing()
        for root in roots {
            guard let names = try? LogLines.files(root.folder) else { continue }
            for path in names {
                let name = (path as NSString).lastPathComponent
                if let stem = root.stem, LogLines.rotationOrder(name).stem != stem { continue }
                var info = stat()
                guard stat(path, &info) == 0 else { continue }
                let key = LogLines.fileKey(info)
                found.files.append((key, path))
                found.pathOf[key] = path
            }
        }
        return found
    }

    /// Opens files not followed yet, once their first line is whole (it tells a reused inode from the file the
    /// cursor knew), and resumes each where the cursor says.
    mutating func discover(_ listed: Listing) {
        noteLostFiles(listed.files)
        for (key, path) in listed.files where files[key] == nil && skipped[key] != path {
            // Still the file listed, or it is found again at its new name in the next listing.
            guard let descriptor = LogLines.openListed(path, key: key) else { continue }
            var head = [UInt8](repeating: 0, count: 4096)
            let count = head.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
            guard count > 0, let newline = head[..<count].firstIndex(of: 10) else {
                close(descriptor)
                continue
            }
            let identity =
                "\(key):\(String(SpanIDMath.fnv1a32(String(decoding: head[..<newline], as: UTF8.self)), radix: 16))"
            let entry =
                cursor.entries[path].flatMap { $0.identity == identity ? $0 : nil }
                ?? cursor.entries.values.first { $0.identity == identity }
            if entry?.done == true {
                skipped[key] = path
                close(descriptor)
                continue
            }
            files[key] = FollowedLog(
                descriptor: descriptor, identity: identity, path: path, offset: entry?.position ?? 0, export: export)
            order.append(key)
        }
    }

    /// Rotation numbers skipped since the last listing: those files were pruned unread.
    mutating func noteLostFiles(_ listed: [(key: String, path: String)]) {
        var newest: [String: Int] = [:]
        for (_, path) in listed {
            let (stem, number) = LogLines.rotationOrder((path as NSString).lastPathComponent)
            if number != Int.max { newest[stem] = max(newest[stem] ?? 0, number) }
        }
        for (stem, number) in newest {
            defer { newestRotation[stem] = max(newestRotation[stem] ?? 0, number) }
            guard let before = newestRotation[stem], number > before + 1 else { continue }
            let lost = (before + 1 ..< number).filter { seen in
                !listed.contains { $0.path.hasSuffix("/\(stem).\(seen).log") }
            }
            guard !lost.isEmpty else { continue }
            lostFiles += lost.count
            printError(
                "trail export: \(lost.count) rotated file\(lost.count == 1 ? "" : "s") of \(stem) (\(stem).\(lost[0]).log\(lost.count > 1 ? " to \(stem).\(lost[lost.count - 1]).log" : "")) were pruned before they could be read; their lines are lost (\(lostFiles) files so far)"
            )
        }
    }

    /// Reads what was written since; a file that was rotated (or deleted) and stayed at its end for 2 s is done.
    mutating func poll(_ file: FollowedLog, key: String, listed: Listing, buffer: inout [UInt8]) throws -> Int {
        var info = stat()
        if fstat(file.descriptor, &info) == 0, UInt64(info.st_size) < file.offset {
            printError(
                "trail export: \(file.name) was cut back to \(info.st_size) bytes (copytruncate?); reading it again from its start"
            )
            (file.offset, file.committed) = (0, 0)
            file.partial.removeAll()
            file.skipping = false
        }
        let count = buffer.withUnsafeMutableBytes {
            pread(file.descriptor, $0.baseAddress, $0.count, off_t(file.offset))
        }
        let before = file.gathered.count
        if count > 0 {
            try buffer.withUnsafeBytes { try file.take(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
        }
        let path = listed.pathOf[key]
        if let path { file.name = path }
        let live = path.map { LogLines.rotationOrder(($0 as NSString).lastPathComponent).number == Int.max } ?? false
        if live {
            file.rotatedSince = nil
        } else if file.rotatedSince == nil {
            file.rotatedSince = monotonicSeconds()
        }
        if count <= 0, let since = file.rotatedSince, monotonicSeconds() - since >= 2 { try file.finish() }
        pending += file.gathered.count - before
        return max(count, 0)
    }

    /// Sends every gathered record, then records in the cursor what each file's delivery reached.
    mutating func flush(_ listed: Listing) throws {
        lastFlush = monotonicSeconds()
        let writer = OTLPWriter<LogRecord>(sink: destination.sink, batchSize: destination.batch)
        for key in order {
            guard let file = files[key] else { continue }
            for group in file.gathered.groups {
                try writer.beginResource(group.resource)
                for record in group.records { try writer.add(record) }
                try writer.endResource()
            }
        }
        try writer.flush()
        var entries: [String: FollowCursor.Entry] = [:]
        for key in order {
            guard let file = files[key] else { continue }
            sent += file.gathered.count
            file.gathered.groups.removeAll(keepingCapacity: true)
            file.gathered.count = 0
            entries[file.name] = FollowCursor.Entry(identity: file.identity, position: file.committed, done: file.done)
        }
        // Files gone from the folders are forgotten; those still there and not followed (sent whole, or not
        // readable yet) keep their entries, unless a followed file is the same one under its new name.
        let present = Set(listed.pathOf.values)
        let followed = Set(entries.values.map(\.identity))
        for (path, entry) in cursor.entries
        where entries[path] == nil && present.contains(path) && !followed.contains(entry.identity) {
            entries[path] = entry
        }
        cursor.entries = entries
        pending = 0
        cursor.saveOrSay()
        for key in order where files[key]?.done == true { files[key] = nil }
        order.removeAll { files[$0] == nil }
    }
}
