import Foundation
import Testing
import TrailFormat
import TrailTestSupport

/// The crash blocks and marker the runtime really writes, read through TrailFormat: no line of them is one the
/// format does not know.
@Suite struct CrashBlockFormatTests {
    @Test func realBlocksAndMarkerParseWithNoUnknownLine() throws {
        let directory = Paths.temporaryDirectory("format")
        let result = try run(
            RuntimeProbe.path, RuntimeProbe.arguments(.crash, directory, CrashMethod.traced, 3),
            environment: [
                "SWIFT_BACKTRACE": "enable=no", "TRAIL_TRACE": "record",
                "TRAIL_TRACE_FILE": directory + "/probe.trace",
            ])
        #expect(result.signal == 11, "\(result.stderr.suffix(500))")
        let log = Transcript.read(directory + "/probe.log")
        let (blocks, problems) = CrashLog.parse(log)
        #expect(problems.isEmpty, "\(problems)")
        #expect(blocks.map(\.kind) == [.error, .crash])
        for block in blocks {
            #expect(block.complete && block.version == CrashBlockSyntax.version)
            #expect(block.foreignLines.isEmpty, "unknown lines: \(block.foreignLines)")
            #expect(!block.frames.isEmpty && !block.images.isEmpty)
            #expect(block.images.contains { $0.path == block.executable && $0.buildID != nil })
            #expect(block.frames.allSatisfy { block.imageIndex(containing: $0.address) != nil })
            #expect(block.trace == "record" && CrashBlockSyntax.traceModes.contains(block.trace ?? ""))
            #expect(block.breadcrumbs.allSatisfy { CrashBlockSyntax.breadcrumbEvents.contains($0.event) })
            #expect(
                block.breadcrumbs.contains { $0.event == "enter" && $0.site == "Probe.traced() @ Probe/main.swift:60" })
            #expect(block.openCalls == ["Probe.traced() @ Probe/main.swift:60"])
            #expect(block.app == "probe -" && block.pid.flatMap { Int($0) } != nil && block.time != nil)
        }
        let (error, crash) = (blocks[0], blocks[1])
        #expect(error.reason?.hasPrefix("ProbeError: ProbeError() (on purpose) at ") == true, "\(error.fields)")
        #expect(error.signal == nil && error.frames.allSatisfy(\.isReturnAddress))
        #expect(Set(crash.fields.keys) == Set(CrashBlockSyntax.fieldKeys).subtracting(["reason"]))
        #expect(crash.signal?.number == 11 && crash.signal?.name == CrashSignal.name(11))
        #expect(crash.signal?.code == "SEGV_MAPERR" && crash.signal?.address == "0x8")
        #expect(crash.frames.first?.isReturnAddress == false)

        // The marker names the crash block's offset in the log.
        let marker = try #require(
            CrashMarker(parsing: Transcript.read(directory + "/probe" + CrashMarker.fileExtension)))
        #expect(
            marker.log.hasSuffix("/probe.log") && marker.signal == 11 && marker.pid == crash.pid.flatMap { Int($0) })
        #expect(marker.time?.isEmpty == false)
        let offset = try #require(marker.offset)
        let atOffset = String(decoding: Array(log.utf8)[offset...], as: UTF8.self)
        let leading = try #require(CrashBlockSyntax.leadingCrashBlock(atOffset))
        #expect(
            leading.hasPrefix(CrashBlockSyntax.beginLine(.crash) + "\n")
                && leading.hasSuffix(CrashBlockSyntax.endLine(.crash) + "\n"))
        #expect(CrashLog.parse(leading).blocks.first?.frames.map(\.address) == crash.frames.map(\.address))
        #expect(CrashMarker(parsing: marker.text) == marker)
    }
}
