import SwiftSyntax

/// Attributes whose bodies are skipped.
enum Skip {
    /// Bodies that must not call out, or are inlined even in debug builds.
    static let always: Set<String> = [
        "_transparent", "_effects", "_noLocks", "_noAllocation", "_noRuntime", "_noExistentials", "_noObjCBridging",
    ]
    /// Bodies emitted into client modules: a call to Trail there needs Trail imported publicly, and makes
    /// every client trace too. Instrumented only with `InstrumentOptions.inlinable`.
    static let emittedIntoClients: Set<String> = ["inlinable", "_alwaysEmitIntoClient", "backDeployed", "export"]
}
