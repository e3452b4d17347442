// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Resources",
    dependencies: [.package(name: "swift-trail", path: "../..")],
    targets: [
        .executableTarget(
            name: "Gallery",
            resources: [.process("Resources")],
            // Constants for every file under Resources/, and for the identifiers in the XML layouts.
            plugins: [.plugin(name: "TrailResources", package: "swift-trail")]
        )
    ]
)
