import Foundation
import Testing
import TrailTelemetry
import TrailTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// `LogFollow` in process, a round at a time: rotation, truncation, a file that vanishes and comes back, a torn
/// last line, and the stop signal. (FollowLogsTests runs `trail` beside real services.)
@Suite(.serialized) struct LogFollowTests {
    /// A folder, a follower of it that sends at every round and finishes a rotated file at once, and what it sent
    /// and said.
    final class Following {
        let folder: String
        let sink = CapturedRequests()
        var said: [String] = []
        var follow: LogFollow!

        init(_ name: String) throws {
            folder = Paths.temporaryDirectory(name)
            try start()
        }

        /// A follower of the folder, as a restart makes one: from the cursor.
        func start() throws {
            follow = try LogFollow(
                output: FollowOutput(sink: sink, batch: 512, name: "test", say: { [unowned self] in said.append($0) }),
                given: [folder], cursorPath: LogFollow.defaultCursor([folder]), export: LogExport(serviceName: "test"))
            follow.timing.flushInterval = 0
            follow.timing.settle = 0
        }

        /// Appends `text` to the file `name` of the folder, making it when it is not there.
        func write(_ text: String, to name: String = "app.log") throws {
            let path = folder + "/" + name
            if !FileManager.default.fileExists(atPath: path) {
                FileManager.default.createFile(atPath: path, contents: nil)
            }
            let handle = try #require(FileHandle(forWritingAtPath: path))
            try handle.seekToEnd()
            try handle.write(contentsOf: Data(text.utf8))
            try handle.close()
        }

        /// `rounds` rounds, then what is gathered is sent; the bodies sent so far.
        func read(rounds: Int = 1) throws -> [String] {
            for _ in 0 ..< rounds { try follow.step() }
            try follow.flush()
            return try sink.bodies()
        }

        func rename(_ from: String, _ to: String) throws {
            try FileManager.default.moveItem(atPath: folder + "/" + from, toPath: folder + "/" + to)
        }
    }

    @Test func rotationReadsTheOldFileToItsEndThenTheNewOne() throws {
        let following = try Following("follow-rotation")
        try following.write("one\ntwo\n")
        #expect(try following.read() == ["one", "two"])
        // Written after the first read, then the logger rotates: app.log becomes app.1.log, a new app.log starts.
        try following.write("three\n")
        try following.rename("app.log", "app.1.log")
        try following.write("four\n")
        #expect(try following.read(rounds: 3) == ["one", "two", "three", "four"])
        #expect(following.follow.sent == 4)
    }

    @Test func aFileCutBackIsReadAgainFromItsStart() throws {
        let following = try Following("follow-truncate")
        try following.write("before one\nbefore two\n")
        _ = try following.read()
        // copytruncate: the file is copied away and cut back to nothing, then written again.
        truncate(following.folder + "/app.log", 0)
        try following.write("after\n")
        #expect(try following.read() == ["before one", "before two", "after"])
        #expect(following.said.contains { $0.contains("was cut back to") })
    }

    @Test func aFileThatVanishesIsReadToItsEndAndOneThatReappearsIsNew() throws {
        let following = try Following("follow-vanish")
        try following.write("first life\n")
        _ = try following.read()
        try following.write("last words\n")
        try FileManager.default.removeItem(atPath: following.folder + "/app.log")
        _ = try following.read()
        try following.write("second life\n")
        #expect(try following.read(rounds: 3) == ["first life", "last words", "second life"])
    }

    @Test func aTornLastLineWaitsForItsEnd() throws {
        let following = try Following("follow-torn")
        try following.write("whole\nhalf a ")
        #expect(try following.read() == ["whole"])
        try following.write("line\n")
        #expect(try following.read() == ["whole", "half a line"])
    }

    @Test func aRestartGoesOnFromTheCursor() throws {
        let following = try Following("follow-restart")
        try following.write("sent once\n")
        _ = try following.read()
        try following.write("sent after the restart\n")
        try following.start()
        #expect(try following.read() == ["sent once", "sent after the restart"])
    }

    @Test func aStopSignalEndsTheLoopAfterItsLastDelivery() throws {
        let following = try Following("follow-stop")
        try following.write("pending\n")
        StopSignal.install()
        defer { StopSignal.reset() }
        #expect(!StopSignal.requested)
        raise(SIGTERM)
        #expect(StopSignal.requested)
        // Read but not yet due; once asked to stop, the loop reads no more but sends what it has.
        following.follow.timing.flushInterval = 60
        try following.follow.step()
        #expect(following.sink.requests.isEmpty)
        try following.follow.run()
        #expect(try following.sink.bodies() == ["pending"])
        #expect(following.said.last?.contains("1 log records sent") == true)
        #expect(FileManager.default.fileExists(atPath: following.folder + "/.trail-follow-logs.json"))
    }
}
