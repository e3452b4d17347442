import Foundation
import Testing
import TrailTestSupport

/// A build copy (`trail instrument --line-directive`, as the build plugin writes it) compiles to the same
/// lines and columns as the original: diagnostics and `#column` agree.
@Suite struct PluginCopyColumnTests {
    /// The copy of `source`, written as the plugin does, with a name of its own so its `#fileID` differs.
    static func pluginCopy(of source: String, in directory: String) throws -> String {
        let copy =
            directory + "/copy/" + ((source as NSString).lastPathComponent as NSString).deletingPathExtension
            + ".trail.swift"
        try run(
            Paths.trail,
            ["instrument", "--closures", "--line-directive", "--module", "App", "--output-file", copy, source],
            check: true)
        return copy
    }

    static var runtimeFlags: [String] {
        let build = Paths.buildDirectory
        return [
            "-I", build + "/Modules", "-I", Paths.packageRoot + "/Sources/CTrailHooks/include",
            "-L", build, "-lTrailDynamic", "-Xlinker", "-rpath", "-Xlinker", build,
        ]
    }

    /// `file:line:col: error: message` lines, in order.
    static func errors(_ output: String) -> [Substring] {
        output.split(separator: "\n").filter { $0.hasPrefix("/") && $0.contains(": error: ") }
    }

    @Test func typeErrorsOnOneLineBodiesHaveTheirColumns() throws {
        let directory = Paths.temporaryDirectory("columns")
        let source = directory + "/Store.swift"
        try """
        struct Store {
            var items: [Int] = [1, 2]
            func total() -> Int { items.count + "x" }
            var name: Int { "store" }
            func call() { let x: Int = "s"; print(x) }
            func cond() -> Int {
                #if DEBUG
                "a"
                #else
                "b"
                #endif
            }
        }
        func f() -> Int { "1" }

        """.write(toFile: source, atomically: true, encoding: .utf8)
        let plain = try run("swiftc", ["-module-name", "App", "-typecheck", source])
        let copy = try Self.pluginCopy(of: source, in: directory)
        let traced = try run("swiftc", ["-module-name", "App", "-typecheck", copy] + Self.runtimeFlags)
        let expected = Self.errors(plain.stderr)
        #expect(expected.count == 5)
        #expect(expected.contains { $0.hasPrefix(source + ":3:41: error:") })
        let errors = Self.errors(traced.stderr)
        #expect(errors.count == expected.count)
        #expect(errors.filter { !expected.contains($0) }.count == 2, "lines 4 and 14 fold")
        for (error, untraced) in zip(errors, expected) {
            // A one-value body ends `value ~>| Trail.TypedExit<Int>()`, whose left operand must be an `Int`: a
            // type error in the whole value is at its untraced line and column, in the words of an argument
            // (lines 4 and 14; the `#if` body keeps its `defer`).
            guard untraced.contains("error: cannot convert return expression"), error != untraced else {
                #expect(error == untraced)
                continue
            }
            let (place, words) = (Self.place(error), Self.place(untraced))
            #expect(place.line == words.line && place.column == words.column, "\(error)")
            #expect(place.message.hasSuffix("cannot convert value of type 'String' to expected argument type 'Int'"))
        }
    }

    /// `file:line` and the message of an error line, and its column apart.
    static func place(_ error: Substring) -> (line: Substring, column: Int, message: Substring) {
        let parts = error.split(separator: ":", maxSplits: 3)
        return (parts[0] + ":" + parts[1], Int(parts[2]) ?? 0, parts[3])
    }

    @Test func columnLiteralsAgree() throws {
        let directory = Paths.temporaryDirectory("column-literal")
        let source = directory + "/main.swift"
        try """
        func here(_ line: Int = #line, _ column: Int = #column) -> String { "\\(line):\\(column)" }
        struct P { func a() -> String { here() }; var b: String { here() } }
        func c() -> String { (#line, #column, here()).2 }
        let d = { () -> String in here() }
        print(P().a(), P().b, c(), d(), separator: " ")

        """.write(toFile: source, atomically: true, encoding: .utf8)
        try run("swiftc", ["-module-name", "App", "-o", directory + "/plain", source], check: true)
        let copy = try Self.pluginCopy(of: source, in: directory)
        // main.swift keeps its name in a copy's folder, as in the plugin's.
        let main = directory + "/copy/main.swift"
        try FileManager.default.moveItem(atPath: copy, toPath: main)
        try run("swiftc", ["-module-name", "App", "-o", directory + "/traced", main] + Self.runtimeFlags, check: true)
        let plain = try run(directory + "/plain", [], check: true).stdout
        #expect(plain == "2:37 2:63 3:43 4:31\n")
        #expect(try run(directory + "/traced", [], check: true).stdout == plain)
    }

    /// The frame a crash dies in, as the Swift runtime's backtracer symbolizes it: `line:column` of `function`.
    static func crashFrame(_ binary: String, _ function: String) throws -> String? {
        let result = try run(
            binary, [], environment: ["SWIFT_BACKTRACE": "enable=yes,interactive=no,color=no,output-to=stderr"])
        let frame = result.stderr.split(separator: "\n").first { $0.contains(function) && $0.contains(" at /") }
        return frame.flatMap { $0.split(separator: ":").suffix(2).joined(separator: ":") }
    }

    @Test func aCrashFrameHasTheUntracedLineAndColumn() throws {
        let directory = Paths.temporaryDirectory("crash-column")
        let source = directory + "/main.swift"
        try """
        func divide(_ a: Int, by b: Int) -> Int { a / b }
        struct Shelf { var items: [Int]; func item(_ index: Int) -> Int { items[index] } }
        let zero = CommandLine.arguments.count - 1
        print(Shelf(items: [divide(10, by: zero)]).item(3))

        """.write(toFile: source, atomically: true, encoding: .utf8)
        try run("swiftc", ["-module-name", "App", "-g", "-Onone", "-o", directory + "/plain", source], check: true)
        let copy = try Self.pluginCopy(of: source, in: directory)
        let main = directory + "/copy/main.swift"
        try FileManager.default.moveItem(atPath: copy, toPath: main)
        try run(
            "swiftc", ["-module-name", "App", "-g", "-Onone", "-o", directory + "/traced", main] + Self.runtimeFlags,
            check: true)
        let plain = try Self.crashFrame(directory + "/plain", "divide")
        #expect(plain?.hasPrefix("1:") == true, "\(plain ?? "no frame")")
        #expect(try Self.crashFrame(directory + "/traced", "divide") == plain)
    }
}
