// swift-tools-version:6.0
import PackageDescription

// Every kind of target the Trail plugin meets, all opted in: a C target, a Swift target whose files the build
// compiles itself (no `sources:`), an executable with `main.swift`, and the syntax zoo, which the test copies
// into Sources/Zoo and Sources/ZooLog. Built with TRAIL=1 and -warnings-as-errors.
let traced = Context.environment["TRAIL"] == "1"
let trail: [Target.PluginUsage] = traced ? [.plugin(name: "TrailPlugin", package: "swift-trail")] : []

let package = Package(
    name: "PluginMix",
    dependencies: [.package(name: "swift-trail", path: "../../..")],
    targets: [
        .target(name: "CCounter", plugins: trail),
        .target(name: "Untraced", plugins: trail),
        .executableTarget(
            name: "App",
            dependencies: ["CCounter", "Untraced", .product(name: "Trail", package: "swift-trail")],
            sources: traced ? ["_Trail.swift"] : nil,
            plugins: trail
        ),
        .target(name: "ZooLog", swiftSettings: [.swiftLanguageMode(.v5)]),
        .executableTarget(
            name: "Zoo",
            dependencies: ["ZooLog", .product(name: "Trail", package: "swift-trail")],
            sources: traced ? ["_Trail.swift"] : nil,
            // Values.swift returns a Span, a ~Escapable value.
            swiftSettings: [.swiftLanguageMode(.v5), .enableExperimentalFeature("Lifetimes")],
            plugins: trail
        ),
    ]
)
