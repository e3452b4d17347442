// swift-tools-version:6.0
import PackageDescription

// swift-trail: `TRAIL=1 swift build --scratch-path .build/trail` compiles instrumented copies of the sources.
let traced = Context.environment["TRAIL"] == "1"

let package = Package(
    name: "CrashLab",
    dependencies: [.package(name: "swift-trail", path: "../..")],
    targets: [
        .executableTarget(
            name: "CrashLab",
            dependencies: [.product(name: "Trail", package: "swift-trail")],
            sources: traced ? ["_Trail.swift"] : nil,
            plugins: traced ? [.plugin(name: "TrailPlugin", package: "swift-trail")] : []
        )
    ]
)
