import Foundation
import TrailFormat

#if canImport(Glibc)
import Glibc
#endif

/// `trail export --otlp-logs --follow`'s loop: files found by (device, inode), so that a rename is no new file;
/// lines read a MiB at a time per file, records sent every second (or when a batch is full), the cursor saved
/// after each delivery.
public struct LogFollow {
    let output: FollowOutput
    /// Folders, and per folder the one app to follow (a file was named) or nil for all.
    let roots: [(folder: String, stem: String?)]
    public private(set) var cursor: FollowCursor
    public var timing = FollowTiming()
    let export: LogExport
    /// Followed files in the order found (oldest rotation first), by "device:inode".
    var files: [String: FollowedLog] = [:]
    var order: [String] = []
    /// Files the cursor has as sent whole, by key, with the path they had: not read again while it stays so.
    var skipped: [String: String] = [:]
    var pending = 0
    var lastFlush = FollowTiming.now()
    /// Records sent so far.
    public private(set) var sent = 0
    /// Per app, the highest rotation number seen: a later one past it by more than one means files were rotated
    /// and pruned before they could be read (while the receiver was down, say). Counted and said.
    var newestRotation: [String: Int] = [:]
    public private(set) var lostFiles = 0
    var buffer = [UInt8](repeating: 0, count: 1 << 20)

    /// Follows the log folders and files `given` (a file: its app's files, rotations included), resuming from the
    /// cursor at `cursorPath` (`defaultCursor` when none is named).
    public init(output: FollowOutput, given: [String], cursorPath: String, export: LogExport) throws {
        self.output = output
        var roots: [(String, String?)] = []
        for given in given {
            var info = stat()
            guard stat(given, &info) == 0 else { throw FollowError("\(given): no such log file or folder") }
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
        cursor = try FollowCursor(path: cursorPath)
        self.export = export
    }

    /// `.trail-follow-logs.json` in the first folder given, else beside the first file.
    public static func defaultCursor(_ given: [String]) -> String {
        given.first(where: FollowPaths.isFolder).map { $0 + "/.trail-follow-logs.json" } ?? given[0] + ".follow.json"
    }

    /// What it follows, for messages: `app.log` for a file named, else the folder.
    public var described: String { roots.map { $0.stem.map { "\($0).log" } ?? $0.folder }.joined(separator: ", ") }

    /// Rounds until `stop` says so (SIGINT or SIGTERM, once `StopSignal.install` ran), then what is pending.
    public mutating func run(until stop: () -> Bool = { StopSignal.requested }) throws {
        while !stop() {
            if try step() == 0 { usleep(timing.idleMicroseconds) }
        }
        try flush(list())
        output.say(
            "trail export: \(sent) log records sent\(lostFiles > 0 ? ", \(lostFiles) rotated files lost unread" : ""); cursor saved in \(cursor.path)"
        )
    }

    /// One round: new files, what each had written since, and a delivery when one is due; returns the bytes read.
    @discardableResult
    public mutating func step() throws -> Int {
        let listed = list()
        discover(listed)
        var progress = 0
        for key in order {
            guard let file = files[key], !file.done else { continue }
            progress += try poll(file, key: key, listed: listed)
        }
        if pending >= output.batch || (pending > 0 && FollowTiming.now() - lastFlush >= timing.flushInterval)
            || files.values.contains(where: \.done)
        {
            try flush(listed)
        }
        return progress
    }

    /// Sends what is gathered and saves the cursor.
    public mutating func flush() throws { try flush(list()) }

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
            output.say(
                "trail export: \(lost.count) rotated file\(lost.count == 1 ? "" : "s") of \(stem) (\(stem).\(lost[0]).log\(lost.count > 1 ? " to \(stem).\(lost[lost.count - 1]).log" : "")) were pruned before they could be read; their lines are lost (\(lostFiles) files so far)"
            )
        }
    }

    /// Reads what was written since; a file that was rotated (or deleted) and stayed at its end for `timing.settle`
    /// is done.
    mutating func poll(_ file: FollowedLog, key: String, listed: Listing) throws -> Int {
        var info = stat()
        if fstat(file.descriptor, &info) == 0, UInt64(info.st_size) < file.offset {
            output.say(
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
            file.rotatedSince = FollowTiming.now()
        }
        if count <= 0, let since = file.rotatedSince, FollowTiming.now() - since >= timing.settle { try file.finish() }
        pending += file.gathered.count - before
        return max(count, 0)
    }

    /// Sends every gathered record, then records in the cursor what each file's delivery reached.
    mutating func flush(_ listed: Listing) throws {
        lastFlush = FollowTiming.now()
        let writer = OTLPWriter<LogRecord>(sink: output.sink, batchSize: output.batch)
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
        cursor.saveOrSay(output.say)
        for key in order where files[key]?.done == true { files[key] = nil }
        order.removeAll { files[$0] == nil }
    }
}
