// swift-tools-version:6.0
import PackageDescription

// A package as it is before `trail setup`: the test copies it and sets it up.
let package = Package(
    name: "SetupPlain",
    dependencies: [
        .package(path: "../../.."),
    ],
    targets: [
        .target(name: "Greeting"),
        .target(name: "CDouble"),
        .executableTarget(
            name: "Hello",
            dependencies: ["Greeting", "CDouble"],
            path: "Sources/Hello"
        ),
        .testTarget(name: "GreetingTests", dependencies: ["Greeting"]),
    ]
)
