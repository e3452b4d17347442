import CTrailShim
import Foundation
import RuntimeProbeModes
@_spi(Testing) import Trail

#if canImport(Glibc)
import Glibc
#endif

/// Children started from traced calls, and the W3C trace context they and log lines carry.
extension ProbeRun {
    /// Runs `trail-probe calls DIRECTORY 100` with an environment of its own: ENV, comma-separated (may be empty),
    /// as a test harness does with Foundation's Process.environment.
    func spawnChild() throws {
        nothing()
        let childEnvironment = (arguments.count > 3 ? arguments[3] : "").split(separator: ",").map(String.init)
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        child.arguments = [ProbeMode.calls.rawValue, directory, "100"]
        child.environment = Dictionary(
            uniqueKeysWithValues: childEnvironment.map { entry in
                let parts = entry.split(separator: "=", maxSplits: 1).map(String.init)
                return (parts[0], parts.count > 1 ? parts[1] : "")
            })
        try child.run()
        child.waitUntilExit()
        print("child \(child.terminationStatus)")
    }

    /// COUNT children (`calls DIRECTORY 10`, the environment inherited) started through Foundation's Process from
    /// one traced call, run at once.
    func spawnMany() {
        spawner(arguments[2], number(3, 20))
        print("done")
    }

    /// A request handled inside the caller's TRACEPARENT (arguments[3]): a traced call, a log line outside any
    /// call, a traced call that sends the header on, and an async call in a child task.
    func context() async throws {
        try Trail.bootstrap(configuration)
        Trail.withTraceContext(traceparent: arguments[3]) {
            nothing()
            log.info("inside context")
            relay()
        }
        await Trail.withTraceContext(traceparent: arguments[3]) { await leafInChildTask() }
        print("outside \(Trail.currentTraceparent ?? "none")")
    }

    /// Inside the caller's TRACEPARENT (arguments[3]), one child started from a traced call, and one started with
    /// no traced call open (the context itself is then the child's parent).
    func contextSpawn() {
        Trail.withTraceContext(traceparent: arguments[3]) {
            spawner(directory, 1)
            let child = Process()
            child.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            child.arguments = [ProbeMode.calls.rawValue, directory, "10"]
            try? child.run()
            child.waitUntilExit()
        }
        print("done")
    }
}

func leafInChildTask() async {
    async let child: Void = leaf()
    await child
}

func relay() {
    Trail.enter("Probe.relay() @ Probe/main.swift:140")
    defer { Trail.exit() }
    print("relay \(Trail.currentTraceparent ?? "none")")
}

func spawner(_ directory: String, _ count: Int) {
    Trail.enter("Probe.spawner(_:_:) @ Probe/main.swift:130")
    defer { Trail.exit() }
    var children: [Process] = []
    for _ in 0 ..< count {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        child.arguments = [ProbeMode.calls.rawValue, directory, "10"]
        try? child.run()
        children.append(child)
    }
    for child in children { child.waitUntilExit() }
}
