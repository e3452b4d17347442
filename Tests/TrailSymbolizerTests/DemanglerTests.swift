import Foundation
import Testing
import TrailTestSupport

@testable import TrailSymbolizer

/// The demangler against the toolchain's `swift demangle`, over every Swift symbol that the toolchain's
/// runtime libraries define: some 64,000 foreign names of every shape (specializations, thunks, closures,
/// constrained extensions, local types).
@Suite struct DemanglerTests {
    static let symbols: [String] = {
        let libraries = ["libswiftCore.so", "libswift_Concurrency.so", "libFoundationEssentials.so"]
            .map { Paths.toolchainUsr + "/lib/swift/linux/" + $0 }
        let nm = try! run("nm", ["--defined-only"] + libraries, check: true).stdout
        let names = Set(
            nm.split(separator: "\n").compactMap { line -> String? in
                let name = line.split(separator: " ").last.map(String.init) ?? ""
                return name.hasPrefix("$s") ? name : nil
            })
        return names.sorted()
    }()

    static func swiftDemangle(_ flags: [String]) -> [String] {
        let output = try! run(
            Paths.toolchainUsr + "/bin/swift-demangle", flags, input: symbols.joined(separator: "\n") + "\n",
            check: true)
        return output.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }

    func compare(_ ours: [String], _ theirs: [String]) {
        #expect(Self.symbols.count > 50_000, "the toolchain's libraries should hold tens of thousands of Swift symbols")
        #expect(ours.count == theirs.count)
        let differing = zip(Self.symbols, zip(ours, theirs)).filter { $1.0 != $1.1 }
        #expect(
            differing.isEmpty,
            "\(differing.count) names differ, first: \(differing.prefix(3).map { "\($0.0)\n  ours:   \($0.1.0)\n  theirs: \($0.1.1)" })"
        )
    }

    @Test func fullNamesAreWhatSwiftDemanglePrints() {
        compare(Self.symbols.map(Demangler.shared.demangle), Self.swiftDemangle([]))
    }

    @Test func simplifiedNamesAreWhatSwiftDemangleSimplifiedPrints() {
        compare(Self.symbols.map(Demangler.shared.simplified), Self.swiftDemangle(["--simplified"]))
    }

    @Test func cxxAndPlainNames() {
        let vector = "_ZNSt6vectorIiSaIiEE9push_backERKi"
        #expect(Demangler.shared.demangle(vector) == "std::vector<int, std::allocator<int> >::push_back(int const&)")
        #expect(Demangler.shared.simplified(vector) == "std::vector<int, std::allocator<int> >::push_back(int const&)")
        for plain in ["main", "__libc_start_call_main", "_Zjunk", "$sjunk", ""] {
            #expect(Demangler.shared.demangle(plain) == plain)
            #expect(Demangler.shared.simplified(plain) == plain)
        }
    }

    @Test(arguments: [
        ("Swift.Optional<Swift.Int>", "Swift.Int?"),
        ("Swift.Optional<Swift.Optional<Swift.Int>>", "Swift.Int??"),
        ("Swift.Optional<() -> ()>", "(() -> ())?"),
        ("Swift.Optional<Swift.Error & Swift.Sendable>", "(Swift.Error & Swift.Sendable)?"),
        ("Swift.ImplicitlyUnwrappedOptional<Swift.Int>", "Swift.Int!"),
        ("Swift.Array<Swift.Dictionary<Swift.String, Swift.Array<Swift.Int>>>", "[[Swift.String : [Swift.Int]]]"),
        ("f(Swift.Optional<(Swift.Int) -> Swift.Int>) -> Swift.Array<A>", "f(((Swift.Int) -> Swift.Int)?) -> [A]"),
        ("(extension in M):Swift.Array<A where A: M.P>.f()", "(extension in M):Swift.Array<A where A: M.P>.f()"),
        (
            "(extension in M):Swift.Dictionary< where A == Swift.String, B: M.P>.f()",
            "(extension in M):Swift.Dictionary< where A == Swift.String, B: M.P>.f()"
        ),
        ("M.Swift.Array<Swift.Int>", "M.Swift.Array<Swift.Int>"),
        ("f(RealmSwift.Array<Swift.Int>)", "f(RealmSwift.Array<Swift.Int>)"),
        ("[Swift.StringSwift.Optional<Swift.Int>]", "[Swift.StringSwift.Int?]"),
        ("for <ASwift.Optional<Swift.Int>>", "for <ASwift.Int?>"),
        (
            "[Constant Propagated Function : f(Swift.Optional<Swift.Int>)]",
            "[Constant Propagated Function : f(Swift.Optional<Swift.Int>)]"
        ),
        ("Swift.Optional<Swift.Int", "Swift.Optional<Swift.Int"),
    ])
    func typeSugar(_ plain: String, _ sugared: String) {
        #expect(TypeSugar.apply(plain) == sugared)
    }
}
