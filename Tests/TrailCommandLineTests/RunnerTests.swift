import Foundation
import Testing
import TrailCommandLine

/// The runner: which verb runs, what each kind of failure exits with, and that the error is printed once, on
/// standard error, after the verb's name.
@Suite(.serialized) struct RunnerTests {
    struct Broken: Error, CustomStringConvertible {
        var description: String { "it broke" }
    }

    static func verb(_ name: String, _ run: @escaping @Sendable (ParsedArguments) throws -> Int32) -> Verb {
        Verb(name: name, summary: "\(name).", usage: "", options: [.flag("--loud", help: "Loud.")], run: run)
    }

    static let verbs = [
        verb("ok") { $0.has("loud") ? 3 : 0 },
        verb("usage") { _ in throw UsageError(description: "bad usage") },
        verb("fails") { _ in throw VerbFailure("no trace here", status: 4) },
        verb("input") { _ in throw VerbFailure.input("t.trace:1:1: error: cut short") },
        verb("broken") { _ in throw Broken() },
    ]

    /// Runs `body` with standard error going to a file, and gives back what it wrote there.
    static func standardError(of body: () -> Int32) throws -> (status: Int32, text: String) {
        let path = NSTemporaryDirectory() + "runner-stderr-\(getpid())"
        defer { unlink(path) }
        let file = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        try #require(file >= 0)
        let saved = dup(2)
        dup2(file, 2)
        close(file)
        let status = body()
        dup2(saved, 2)
        close(saved)
        return (status, (try? String(contentsOfFile: path, encoding: .utf8)) ?? "")
    }

    static let exits: [(arguments: [String], status: Int32, printed: String)] = [
        (["ok"], 0, ""),
        (["ok", "--loud"], 3, ""),
        (["ok", "--quiet"], 2, "trail ok: unknown option '--quiet' for 'trail ok' (see 'trail ok --help')\n"),
        (["usage"], 2, "trail usage: bad usage\n"),
        (["fails"], 4, "trail fails: no trace here\n"),
        (["input"], 1, "t.trace:1:1: error: cut short\n"),
        (["broken"], 1, "trail broken: it broke\n"),
        (["nope"], 2, "trail: unknown verb 'nope'. Verbs: ok, usage, fails, input, broken.\n"),
    ]

    @Test(arguments: exits.indices)
    func eachFailureExitsWithItsStatusAndIsPrintedOnce(_ index: Int) throws {
        let line = Self.exits[index]
        let (status, text) = try Self.standardError {
            runVerbs(Self.verbs, arguments: line.arguments, overview: "overview")
        }
        #expect(status == line.status, "\(line.arguments)")
        if line.printed.isEmpty {
            #expect(!text.contains("trail"), "\(text)")
        } else {
            #expect(text.hasSuffix(line.printed) && text.components(separatedBy: line.printed).count == 2, "\(text)")
        }
    }

    /// `--help` anywhere, `help VERB`, and no verb at all: help, not an error (but no verb is a usage status).
    @Test func helpAndTheOverview() throws {
        #expect(runVerbs(Self.verbs, arguments: ["ok", "--loud", "--help"], overview: "overview") == 0)
        #expect(runVerbs(Self.verbs, arguments: ["help", "fails"], overview: "overview") == 0)
        #expect(runVerbs(Self.verbs, arguments: ["--help"], overview: "overview") == 0)
        #expect(runVerbs(Self.verbs, arguments: ["--version"], overview: "overview") == 0)
        #expect(runVerbs(Self.verbs, arguments: [], overview: "overview") == 2)
    }

    /// Every forwarded verb is named once, `test` and `run` among them.
    @Test func forwardedVerbsAreNamedOnce() {
        let names = ForwardedVerbs.all.map(\.name)
        #expect(Set(names).count == names.count)
        #expect(names.contains("test") && names.contains("run") && names.contains("setup"))
    }
}
