// swift-tools-version:6.1
import PackageDescription

// swift-trail: `TRAIL=1 swift build --scratch-path .build/trail` compiles instrumented copies of the sources.
let traced = Context.environment["TRAIL"] == "1"

let package = Package(
    name: "Server",
    dependencies: [
        // The TrailLogging trait brings swift-log's LogHandler over Trail; without it, nothing of swift-log is fetched.
        .package(name: "swift-trail", path: "../..", traits: ["TrailLogging"]),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.12.0"),
    ],
    targets: [
        // A stand-in for a server library (SwiftNIO, Hummingbird): it logs through swift-log only.
        .target(
            name: "MiniHTTP",
            dependencies: [.product(name: "Logging", package: "swift-log")]
                + (traced ? [.product(name: "Trail", package: "swift-trail")] : []),
            sources: traced ? ["_Trail.swift"] : nil,
            plugins: traced ? [.plugin(name: "TrailPlugin", package: "swift-trail")] : []
        ),
        // The application: Trail's runtime and logger, with swift-log bootstrapped onto Trail.
        .executableTarget(
            name: "Server",
            dependencies: [
                "MiniHTTP",
                .product(name: "Trail", package: "swift-trail"),
                .product(name: "TrailLogging", package: "swift-trail"),
                .product(name: "Logging", package: "swift-log"),
            ],
            sources: traced ? ["_Trail.swift"] : nil,
            plugins: traced ? [.plugin(name: "TrailPlugin", package: "swift-trail")] : []
        ),
    ]
)
