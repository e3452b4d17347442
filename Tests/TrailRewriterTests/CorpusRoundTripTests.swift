import Foundation
import SwiftParser
import SwiftSyntax
import Testing
import TrailDriver
import TrailTestSupport

@testable import TrailRewriter

/// The toolchain's `.swiftinterface` files: ~375k lines of real Swift no one here wrote, with many
/// `@inlinable` bodies. Every file must instrument without new syntax errors, keep its line count, and strip
/// back to the same bytes.
@Suite struct CorpusRoundTripTests {
    static func corpus() -> [String] {
        let root = Paths.toolchainUsr + "/lib"
        let enumerator = FileManager.default.enumerator(atPath: root)
        var files: [String] = []
        while let next = enumerator?.nextObject() as? String {
            if next.hasSuffix(".swiftinterface") { files.append(root + "/" + next) }
        }
        return files.sorted()
    }

    static func syntaxErrors(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { Parser.parse(source: $0).hasError }
    }

    struct FileReport: Sendable {
        var bodies = 0
        var problems: [String] = []
    }

    @Test func instrumentThenStripIsExactOnTheToolchainInterfaces() throws {
        let files = Self.corpus()
        #expect(files.count > 50, "expected the toolchain's swiftinterface files")
        let reports = Mutex(Array(repeating: FileReport(), count: files.count))
        DispatchQueue.concurrentPerform(iterations: files.count) { index in
            var report = FileReport()
            defer { reports.withLock { $0[index] = report } }
            let path = files[index]
            guard let original = try? FileIO.read(path) else { return report.problems.append("\(path): unreadable") }
            let module = URL(fileURLWithPath: path).deletingLastPathComponent().deletingPathExtension()
                .lastPathComponent
            let settings = InstrumentSettings(closures: true, inlinable: true)
            let instrumented: [UInt8]
            do {
                switch try settings.instrument(original, path: path, module: module) {
                case .changed(let bytes, let bodies):
                    instrumented = bytes
                    report.bodies = bodies
                case .unchanged, .skipped: return
                }
                if Self.syntaxErrors(instrumented), !Self.syntaxErrors(original) {
                    report.problems.append("\(path): instrumenting introduced a syntax error")
                }
                if instrumented.count(where: { $0 == 10 }) != original.count(where: { $0 == 10 }) {
                    report.problems.append("\(path): line count changed")
                }
                guard case .changed(let back, _) = try Rewriter.strip(instrumented, path: path), back == original else {
                    return report.problems.append("\(path): strip did not restore the original bytes")
                }
                if case .changed = try settings.instrument(instrumented, path: path, module: module) {
                    report.problems.append("\(path): instrumenting twice changed the file")
                }
            } catch {
                report.problems.append("\(error)")
            }
        }
        let all = reports.withLock { $0 }
        let problems = all.flatMap(\.problems)
        #expect(problems.isEmpty, "\(problems.prefix(20).joined(separator: "\n"))")
        #expect(all.reduce(0) { $0 + $1.bodies } > 20_000)
    }
}

/// A value shared between threads, only touched under its lock.
final class Mutex<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()
    init(_ value: Value) { self.value = value }
    func withLock<T>(_ body: (inout Value) -> T) -> T { lock.withLock { body(&value) } }
}
