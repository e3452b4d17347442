import Foundation
import Testing
import TrailTestSupport
@testable import TrailSymbolizer

/// `UnitRangeReader` reads compile-unit ranges itself; libdw's walk (`dwfl_module_nextcu` + `dwarf_ranges`)
/// must give the same table, on Swift's DWARF 4, gcc's and clang's DWARF 4 and 5 (clang's with indexed addresses
/// and range lists), split DWARF's skeleton units, and on damaged debug info it must fall back rather than fail.
@Suite struct UnitTableTests {
    /// A C program with scattered functions (so units have range lists), built by each compiler and DWARF version.
    static let programs: [String] = {
        let directory = Paths.temporaryDirectory("units")
        let source = directory + "/scattered.c"
        try! """
            #include <stdio.h>
            __attribute__((noinline, section(".text.hot"))) int hot(int x) { return x * 3 + 1; }
            __attribute__((noinline)) int cold(int x) { return x > 3 ? hot(x - 1) : x; }
            static inline int inlined(int x) { return cold(x) + hot(x); }
            int main(int argc, char **argv) { (void)argv; printf("%d\\n", inlined(argc)); return 0; }
            """.write(toFile: source, atomically: true, encoding: .utf8)
        var built: [String] = []
        let clang = Paths.toolchainUsr + "/bin/clang"
        for (name, compiler, flags) in [("gcc-dwarf5", "gcc", ["-gdwarf-5"]), ("gcc-dwarf4", "gcc", ["-gdwarf-4"]),
                                        ("clang-dwarf5", clang, ["-gdwarf-5"]), ("clang-dwarf4", clang, ["-gdwarf-4"]),
                                        ("gcc-split", "gcc", ["-gdwarf-5", "-gsplit-dwarf"]), ("clang-split", clang, ["-gdwarf-5", "-gsplit-dwarf"])] {
            let output = directory + "/" + name
            try! run(compiler, flags + ["-O2", "-ffunction-sections", source, "-o", output], directory: directory, check: true)
            built.append(output)
        }
        return built
    }()

    static func table(_ path: String, libdw: Bool) throws -> [String] {
        try ELFImage(path: path, unitsFromLibdw: libdw).unitTable.map { "\(String($0.low, radix: 16))-\(String($0.high, radix: 16)) @\($0.dieOffset)" }
    }

    @Test func swiftBinariesAgreeWithLibdw() throws {
        // trail: dozens of Swift units, each followed by its imported modules' skeleton units.
        for binary in [Paths.trail, Paths.buildDirectory + "/trail-probe"] {
            let ours = try Self.table(binary, libdw: false)
            #expect(ours.count > 20, "\(binary): \(ours.count) ranges")
            #expect(ours == (try Self.table(binary, libdw: true)), "\(binary)")
        }
    }

    @Test func cBinariesAgreeWithLibdw() throws {
        for program in Self.programs {
            let ours = try Self.table(program, libdw: false)
            #expect(!ours.isEmpty, "\(program)")
            #expect(ours == (try Self.table(program, libdw: true)), "\(program)")
            // The address mode sees the same: every function has its line.
            let image = try ELFImage(path: program)
            #expect(image.hasDebugInfo)
        }
    }

    /// Replaces a section's bytes and returns the damaged copy.
    func damaged(_ binary: String, _ section: String, with bytes: [UInt8]) throws -> String {
        let directory = Paths.temporaryDirectory("damaged")
        let contents = directory + "/section.bin", copy = directory + "/binary"
        try Data(bytes).write(to: URL(fileURLWithPath: contents))
        try run("objcopy", ["--update-section", "\(section)=\(contents)", binary, copy], check: true)
        return copy
    }

    @Test func damagedDebugInfoFallsBackToLibdw() throws {
        let program = Self.programs[0]
        for (section, bytes) in [(".debug_abbrev", [UInt8](repeating: 0xff, count: 64)),
                                 (".debug_info", [0x40, 0, 0, 0, 5, 0, 1, 8]),
                                 (".debug_info", [UInt8](repeating: 0x80, count: 300))] {
            let copy = try damaged(program, section, with: bytes)
            // No crash, and whatever libdw makes of it, the reader does not claim more.
            let ours = try Self.table(copy, libdw: false)
            #expect(ours == (try Self.table(copy, libdw: true)), "\(section)")
            _ = try ELFImage(path: copy).symbolize(0x1000)
        }
    }
}
