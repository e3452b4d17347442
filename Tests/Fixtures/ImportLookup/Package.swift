// swift-tools-version:6.0
import PackageDescription

// Tracing must not change name lookup in a traced file. Walk uses glibc's FTSENT, which Foundation's shims
// also declare, with MemberImportVisibility and InternalImportsByDefault on; Atomicish gives Bool an
// `AtomicRepresentation`, as the standard Synchronization module does. Built untraced, traced in place and
// traced through the plugin (TRAIL=1), each with warnings as errors.
let traced = Context.environment["TRAIL"] == "1"
let trail: [Target.PluginUsage] = traced ? [.plugin(name: "TrailPlugin", package: "swift-trail")] : []
let strict: [SwiftSetting] = [.enableUpcomingFeature("MemberImportVisibility"), .enableUpcomingFeature("InternalImportsByDefault")]

let package = Package(
    name: "ImportLookup",
    dependencies: [.package(name: "swift-trail", path: "../../..")],
    targets: [
        .target(name: "CWalk"),
        .target(name: "Walk", dependencies: ["CWalk", .product(name: "Trail", package: "swift-trail")],
                sources: traced ? ["_Trail.swift"] : nil, swiftSettings: strict, plugins: trail),
        .target(name: "Atomicish", dependencies: [.product(name: "Trail", package: "swift-trail")],
                sources: traced ? ["_Trail.swift"] : nil, plugins: trail),
        .executableTarget(name: "LookupApp", dependencies: ["Walk", "Atomicish", .product(name: "Trail", package: "swift-trail")],
                          sources: traced ? ["_Trail.swift"] : nil, swiftSettings: strict, plugins: trail),
    ]
)
