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
        for (name, compiler, flags) in [
            ("gcc-dwarf5", "gcc", ["-gdwarf-5"]), ("gcc-dwarf4", "gcc", ["-gdwarf-4"]),
            ("clang-dwarf5", clang, ["-gdwarf-5"]), ("clang-dwarf4", clang, ["-gdwarf-4"]),
            ("gcc-split", "gcc", ["-gdwarf-5", "-gsplit-dwarf"]),
            ("clang-split", clang, ["-gdwarf-5", "-gsplit-dwarf"]),
        ] {
            let output = directory + "/" + name
            try! run(
                compiler, flags + ["-O2", "-ffunction-sections", source, "-o", output], directory: directory,
                check: true)
            built.append(output)
        }
        return built
    }()

    static func table(_ path: String, libdw: Bool) throws -> [String] {
        try ELFImage(path: path, unitsFromLibdw: libdw).unitTable.map {
            "\(String($0.low, radix: 16))-\(String($0.high, radix: 16)) @\($0.dieOffset)"
        }
    }

    @Test func swiftBinariesAgreeWithLibdw() throws {
        // trail: dozens of Swift units, each followed by its imported modules' skeleton units.
        for binary in [Paths.trail, RuntimeProbe.path] {
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

    /// `DIEReader` and `LineProgramReader` read functions, inlined calls and line tables themselves; libdw alone
    /// (which an image whose units libdw indexed uses throughout) must give every address the same frames.
    @Test func ownReadersAgreeWithLibdw() throws {
        for binary in Self.programs + [Paths.trail] {
            let ours = try ELFImage(path: binary)
            let libdw = try ELFImage(path: binary, unitsFromLibdw: true)
            var compared = 0
            for unit in ours.unitTable {
                let step = max(1, (unit.high - unit.low) / 40)
                for address in stride(from: unit.low, to: unit.high, by: Int(step)) {
                    let (a, b) = (ours.symbolize(address), libdw.symbolize(address))
                    #expect(a == b, "\(binary) 0x\(String(address, radix: 16))")
                    if a != b { return }
                    compared += 1
                }
            }
            #expect(compared > 40, "\(binary)")
        }
    }

    /// An optimized Swift program: inlined calls nested in inlined calls, and a local function whose subprogram
    /// sits inside its enclosing function's, between that function's own inlined calls. `UnitWalk` reads all
    /// of a unit's functions and inlined calls in one walk and must give every address of them what libdw's
    /// walk per function gives.
    @Test func anOptimizedSwiftProgramAgreesWithLibdwAtEveryAddress() throws {
        let directory = Paths.temporaryDirectory("nested-swift")
        try """
        @inline(__always) func twice(_ x: Int) -> Int { x &* 2 &+ x / 3 }

        @inline(never) func outer(_ values: [Int]) -> Int {
            var total = twice(values.count)
            @inline(never) func local(_ value: Int) -> Int { twice(value) &+ twice(value &+ 1) }
            for value in values { total &+= local(value) }
            let mapped = values.map { twice($0) &- 1 }
            total &+= twice(mapped.reduce(0, &+))
            return total
        }

        print(outer(Array(0 ... CommandLine.arguments.count + 5)))
        """.write(toFile: directory + "/nested.swift", atomically: true, encoding: .utf8)
        try run(
            Paths.toolchainUsr + "/bin/swiftc", ["-O", "-g", "nested.swift", "-o", "nested"], directory: directory,
            check: true)
        let binary = directory + "/nested"
        let ours = try ELFImage(path: binary)
        let libdw = try ELFImage(path: binary, unitsFromLibdw: true)
        var compared = 0
        var inlined = 0
        var names: Set<String> = []
        for unit in ours.unitTable {
            for address in unit.low ..< unit.high {
                let (a, b) = (ours.symbolize(address), libdw.symbolize(address))
                #expect(a == b, "0x\(String(address, radix: 16))")
                if a != b { return }
                compared += 1
                if a.count > 1 { inlined += 1 }
                names.formUnion(a.map(\.mangledName))
            }
        }
        #expect(compared > 200)
        #expect(inlined > 50, "\(inlined) addresses with inlined calls")
        // The local function's own frames, and `twice` inlined into it.
        #expect(names.contains { $0.hasPrefix("$s6nested5outerySiSaySiGF5localL_") }, "\(names.sorted())")
        #expect(names.contains("$s6nested5twiceyS2iF"), "\(names.sorted())")
    }

    /// A compile directory that is itself relative, as glibc's are (`./csu`): a file in directory 0 is already
    /// under it, and llvm-symbolizer prints `./unit/f.c`, not the directory twice. DWARF 4 and 5.
    @Test func aRelativeCompileDirectoryIsNotJoinedTwice() throws {
        let directory = Paths.temporaryDirectory("relative-comp-dir")
        try FileManager.default.createDirectory(atPath: directory + "/sub", withIntermediateDirectories: true)
        try "static int inc(int x) {\n  return x + 1;\n}\n".write(
            toFile: directory + "/sub/h.h", atomically: true, encoding: .utf8)
        try
            "#include \"h.h\"\nint twice(int x) { return 2 * inc(x); }\nint main(int c, char **v) { (void)v; return twice(c); }\n"
            .write(toFile: directory + "/f.c", atomically: true, encoding: .utf8)
        for version in [4, 5] {
            let binary = directory + "/f\(version)"
            try run(
                "gcc",
                [
                    "-g", "-O0", "-gdwarf-\(version)", "-Isub", "-fdebug-prefix-map=\(directory)=./unit", "f.c", "-o",
                    binary,
                ],
                directory: directory, check: true)
            // A file of directory 0 (the compile directory), and one of a relative include directory.
            for (function, file) in [("twice", "./unit/f.c"), ("inc", "./unit/sub/h.h")] {
                let address = try address(of: function, in: binary)
                let frames = try ELFImage(path: binary).symbolize(address)
                #expect(frames.map(\.file) == [file], "DWARF \(version)")
                // libdw's tables, used where the own readers cannot read a unit, must give the same.
                let libdw = try ELFImage(path: binary, unitsFromLibdw: true).symbolize(address)
                #expect(libdw.map(\.file) == [file], "libdw, DWARF \(version)")
                let llvm = try run(
                    Paths.toolchainUsr + "/bin/llvm-symbolizer", ["--obj", binary, "0x" + String(address, radix: 16)],
                    check: true)
                #expect(
                    llvm.stdout.split(separator: "\n").dropFirst().first?.hasPrefix(file + ":") == true,
                    "\(llvm.stdout)")
            }
        }
    }

    /// Replaces sections' bytes and returns the damaged copy.
    func damaged(_ binary: String, _ sections: [(String, [UInt8])]) throws -> String {
        let directory = Paths.temporaryDirectory("damaged")
        var arguments: [String] = []
        for (index, (section, bytes)) in sections.enumerated() {
            let contents = directory + "/section\(index).bin"
            try Data(bytes).write(to: URL(fileURLWithPath: contents))
            arguments += ["--update-section", "\(section)=\(contents)"]
        }
        let copy = directory + "/binary"
        try run("objcopy", arguments + [binary, copy], check: true)
        return copy
    }

    func damaged(_ binary: String, _ section: String, with bytes: [UInt8]) throws -> String {
        try damaged(binary, [(section, bytes)])
    }

    /// Lengths that reach past the section: a 64-bit unit length near 2^63, and an expression block in the
    /// unit's DIE whose length does (with an abbreviation table made for it).
    @Test func lengthsPastTheEndAreRefused() throws {
        let program = Self.programs[1]
        let hugeUnit: [UInt8] =
            [0xff, 0xff, 0xff, 0xff] + [UInt8](repeating: 0xff, count: 7) + [0x7f, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 8, 1]
        // Code 1: DW_TAG_compile_unit, no children, DW_AT_location as DW_FORM_exprloc.
        let abbreviations: [UInt8] = [1, 0x11, 0, 0x02, 0x18, 0, 0, 0]
        let hugeBlock: [UInt8] = [19, 0, 0, 0, 4, 0, 0, 0, 0, 0, 8, 1] + [UInt8](repeating: 0xff, count: 9) + [0x01]
        for sections in [[(".debug_info", hugeUnit)], [(".debug_info", hugeBlock), (".debug_abbrev", abbreviations)]] {
            let copy = try damaged(program, sections)
            #expect(try Self.table(copy, libdw: false) == (try Self.table(copy, libdw: true)))
            _ = try ELFImage(path: copy).symbolize(0x1000)
        }
    }

    /// A library whose first segment is linked above 0 (`-Ttext-segment`, as prelinked ones are): its file
    /// addresses are what a crash block's frames give, less the load bias.
    @Test func aLibraryLinkedAboveZero() throws {
        let directory = Paths.temporaryDirectory("high-library")
        try "int twice(int x) { return 2 * x; }\n".write(
            toFile: directory + "/twice.c", atomically: true, encoding: .utf8)
        try run(
            "gcc", ["-g", "-O1", "-shared", "-fPIC", "-Wl,-Ttext-segment=0x10000000", "twice.c", "-o", "libtwice.so"],
            directory: directory, check: true)
        let library = directory + "/libtwice.so"
        let address = try address(of: "twice", in: library)
        #expect(address >= 0x1000_0000)
        let frames = try ELFImage(path: library).symbolize(address)
        #expect(frames.map(\.mangledName) == ["twice"])
        #expect(frames.first?.file?.hasSuffix("/twice.c") == true && frames.first?.line == 1)
    }

    @Test func damagedDebugInfoFallsBackToLibdw() throws {
        let program = Self.programs[0]
        for (section, bytes) in [
            (".debug_abbrev", [UInt8](repeating: 0xff, count: 64)),
            (".debug_info", [0x40, 0, 0, 0, 5, 0, 1, 8]),
            (".debug_info", [UInt8](repeating: 0x80, count: 300)),
        ] {
            let copy = try damaged(program, section, with: bytes)
            // No crash, and whatever libdw makes of it, the reader does not claim more.
            let ours = try Self.table(copy, libdw: false)
            #expect(ours == (try Self.table(copy, libdw: true)), "\(section)")
            _ = try ELFImage(path: copy).symbolize(0x1000)
        }
    }
}
