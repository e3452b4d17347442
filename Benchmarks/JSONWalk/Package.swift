// swift-tools-version:6.0
import PackageDescription

// An ordinary CPU-bound program for `bench.py values`: a JSON parser of the usual shape, many small functions.
// bench.py builds it plain and instrumented with values (a copy whose manifest depends on Trail).
let package = Package(
    name: "JSONWalk",
    targets: [.executableTarget(name: "JSONWalk")]
)
