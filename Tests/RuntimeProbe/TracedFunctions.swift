import CTrailShim
import Foundation
@_spi(Testing) import Trail

/// The traced functions the modes call, written as the instrumenter writes them. Their sites are names the
/// tests look for, not places: they keep the `Probe/main.swift` lines they had when the probe was one file.
func hop(_ round: Int) async {
    let span = Trail.enterAsync("Probe.hop(_:) @ Probe/main.swift:100")
    defer { Trail.exit(span) }
    try? await Task.sleep(nanoseconds: 200_000)
    await withTaskGroup(of: Void.self) { group in
        for _ in 0 ..< 2 { group.addTask { await leaf() } }
    }
    work()
}

func leaf() async {
    let span = Trail.enterAsync("Probe.leaf() @ Probe/main.swift:110")
    defer { Trail.exit(span) }
    await Task.yield()
    work()
}

func request(_ number: Int) {
    Trail.enter("Probe.request(_:) @ Probe/main.swift:150")
    defer { Trail.exit() }
    for _ in 0 ..< 3 { nothing() }
}

func nothing() {
    Trail.enter("Probe.nothing() @ Probe/main.swift:120")
    defer { Trail.exit() }
}

@Sendable func work() {
    Trail.enter("Probe.work() @ Probe/main.swift:116")
    defer { Trail.exit() }
    _ = (0 ..< 100).reduce(0, +)
}

func family() async {
    let span = Trail.enterAsync("Probe.family() @ Probe/main.swift:130")
    defer { Trail.exit(span) }
    async let first: Void = child("asyncLet")
    await first
    await withTaskGroup(of: Void.self) { group in
        group.addTask { await child("group") }
    }
    await Task { await child("task") }.value
    await Task.detached { await child("detached") }.value
}

@Sendable func child(_ kind: String) async {
    // One site per kind, so the test can tell them apart.
    let site: StaticString =
        switch kind {
        case "asyncLet": "Probe.child.asyncLet() @ Probe/main.swift:140"
        case "group": "Probe.child.group() @ Probe/main.swift:141"
        case "task": "Probe.child.task() @ Probe/main.swift:142"
        default: "Probe.child.detached() @ Probe/main.swift:143"
        }
    let span = Trail.enterAsync(site)
    defer { Trail.exit(span) }
    await Task.yield()
    work()
}

func asyncSpan() async {
    let span = Trail.enterAsync("Probe.asyncSpan() @ Probe/main.swift:150")
    defer { Trail.exit(span) }
    await Task.yield()
    printSpan("async")
}

func printSpan(_ label: String) {
    var trace = [UInt8](repeating: 0, count: 16)
    var span: UInt64 = 0
    if trail_current_span(&trace, &span) == 1 {
        print("\(label) span \(span) trace \(trace.map { String($0, radix: 16) }.joined(separator: ","))")
    } else {
        print("\(label) none")
    }
}
