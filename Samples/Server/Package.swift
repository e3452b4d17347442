// swift-tools-version:6.1
import PackageDescription

// swift-trail: `TRAIL=1 swift build --scratch-path .build/trail` compiles instrumented copies of the sources.
let traced = Context.environment["TRAIL"] == "1"

let package = Package(
    name: "Server",
    dependencies: [
        // The TrailLogging and TrailTracing traits bring swift-log's LogHandler and swift-distributed-tracing's
        // Tracer over Trail; without them, nothing of either package is fetched.
        .package(name: "swift-trail", path: "../..", traits: ["TrailLogging", "TrailTracing"]),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.12.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.1.0"),
    ],
    targets: [
        // A stand-in for a server library (SwiftNIO, Hummingbird): it logs through swift-log and opens spans
        // through swift-distributed-tracing, knowing nothing of Trail.
        .target(
            name: "MiniHTTP",
            dependencies: [
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]
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
                .product(name: "TrailTracing", package: "swift-trail"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            sources: traced ? ["_Trail.swift"] : nil,
            plugins: traced ? [.plugin(name: "TrailPlugin", package: "swift-trail")] : []
        ),
    ]
)
