import Walk
import Atomicish

/// Prints what both libraries find, for the test to compare.
func run() {
    print(representation())
    let root = CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : "."
    print("files: \(countFiles(under: root))")
}
run()
