import Foundation
import Testing
import TrailTestSupport

@testable import TrailSymbolizer

/// Frames named from the symbol table alone (no DWARF): the object file a local symbol came from, only where
/// the table really says so.
@Suite struct SymbolTableTests {
    @Test func aStaticCFunctionNamesItsFile() throws {
        let directory = Paths.temporaryDirectory("symtab")
        try """
        #include <stdio.h>
        __attribute__((noinline)) static int helper(int x) { return x * 7 + 1; }
        int main(int argc, char **argv) { (void)argv; printf("%d\\n", helper(argc)); return 0; }
        """.write(toFile: directory + "/helper.c", atomically: true, encoding: .utf8)
        try run("gcc", ["-O1", "-g0", "helper.c", "-o", "helper"], directory: directory, check: true)
        let binary = directory + "/helper"
        let image = try ELFImage(path: binary)
        #expect(!image.hasDebugInfo)
        let frames = image.symbolize(try address(of: "helper", in: binary) + 2)
        #expect(frames.map(\.mangledName) == ["helper"])
        #expect(frames.first?.file == "helper.c" && frames.first?.line == 0 && frames.first?.offset == 2)
        // A global symbol belongs to no particular STT_FILE group.
        #expect(image.symbolize(try address(of: "main", in: binary)).first?.file == nil)
    }

    /// `main` is a size-0 alias of `CrashLab_main` in Swift programs: such an alias covers nothing of its own,
    /// and least of all the padding after the function.
    @Test func aSizeZeroAliasCoversNothing() throws {
        let directory = Paths.temporaryDirectory("alias")
        try """
        __asm__(".text\\n.p2align 6\\n.globl zero_size\\n.type zero_size,@function\\nzero_size:\\n"
                ".globl sized\\n.type sized,@function\\nsized:\\nret\\n.size sized, 1\\n.p2align 6\\n");
        int main(void) { return 0; }
        """.write(toFile: directory + "/alias.c", atomically: true, encoding: .utf8)
        try run("gcc", ["-O1", "-g0", "alias.c", "-o", "alias"], directory: directory, check: true)
        let binary = directory + "/alias"
        let start = try address(of: "sized", in: binary)
        #expect(try address(of: "zero_size", in: binary) == start)
        let image = try ELFImage(path: binary)
        #expect(["sized", "zero_size"].contains(image.symbolize(start).first?.mangledName))
        #expect(image.symbolize(start + 8).isEmpty, "padding: \(image.symbolize(start + 8))")
    }

    /// An IFUNC's resolver is a local function, and the global IFUNC symbol has the same address and size:
    /// llvm-symbolizer names the code by the IFUNC (glibc's `memcpy@@GLIBC_2.14`, not `__new_memcpy_ifunc`).
    @Test func anIFUNCResolverIsNamedByItsIFUNC() throws {
        let directory = Paths.temporaryDirectory("ifunc")
        try """
        __attribute__((noinline)) static int impl(void) { return 1; }
        static void *resolve_answer(void) { return (void *)impl; }
        int answer(void) __attribute__((ifunc("resolve_answer")));
        int main(void) { return answer() - 1; }
        """.write(toFile: directory + "/ifunc.c", atomically: true, encoding: .utf8)
        try run("gcc", ["-O1", "-g0", "ifunc.c", "-o", "ifunc"], directory: directory, check: true)
        let binary = directory + "/ifunc"
        let resolver = try address(of: "resolve_answer", in: binary)
        #expect(try address(of: "answer", in: binary) == resolver)
        let image = try ELFImage(path: binary)
        #expect(image.symbolize(resolver + 1).map(\.mangledName) == ["answer"])
        let llvm = try run(
            Paths.toolchainUsr + "/bin/llvm-symbolizer", ["--obj", binary, "0x" + String(resolver + 1, radix: 16)],
            check: true)
        #expect(llvm.stdout.hasPrefix("answer\n"), "\(llvm.stdout)")
    }

    @Test func aSymbolTheLinkerMadeLocalNamesNoFile() throws {
        // Foundation's hidden Swift functions follow crtstuff.c's STT_FILE in the table, but did not come from it.
        let library = Paths.toolchainUsr + "/lib/swift/linux/libFoundation.so"
        // NSThreadStart(_:), a private function: its name holds a hash of its file's path.
        let (address, name) = try symbol(in: library) {
            $0.hasPrefix("$s10Foundation13NSThreadStart") && $0.hasSuffix("LLySvSgADF")
        }
        let image = try ELFImage(path: library)
        let frames = image.symbolize(address + 4)
        #expect(frames.map(\.mangledName) == [name])
        #expect(frames.first?.file == nil, "\(frames)")
        #expect(CrashOutputFormat.name(frames[0]) == "NSThreadStart(_:)")
    }
}
