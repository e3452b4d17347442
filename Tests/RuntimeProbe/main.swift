import Foundation
import RuntimeProbeModes

/// Programs the runtime tests run as real processes: logging under load, dying in various ways, and async
/// calls that hop threads. `trail-probe MODE DIRECTORY [ARGUMENTS...]`; the modes are `ProbeMode`'s cases, each
/// a method of `ProbeRun` in the file of its area.
let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    FileHandle.standardError.write(Data("usage: trail-probe MODE DIR ...\n".utf8))
    exit(2)
}
guard let mode = ProbeMode(rawValue: arguments[1]) else {
    FileHandle.standardError.write(Data("unknown mode \(arguments[1])\n".utf8))
    exit(2)
}
let probe = ProbeRun(arguments: arguments, mode: mode)

switch mode {
case .settings: probe.settings()
case .defaultFolder: try probe.defaultFolder()
case .civilDates: probe.civilDates()

case .calls: probe.calls()
case .async: await probe.asyncCalls()
case .tasks: await probe.tasks()
case .span: await probe.span()
case .steady: probe.steady()
case .forkCalls: probe.forkCalls()
case .shortThreads: probe.shortThreads()
case .firstCalls: probe.firstCalls()
case .traceUnwritable: probe.traceUnwritable()
case .traceDiskFull: probe.traceDiskFull()
case .traceThen: probe.traceThen()
case .exitThenSignal: probe.exitThenSignal()

case .spawnChild: try probe.spawnChild()
case .spawnMany: probe.spawnMany()
case .context: try await probe.context()
case .contextSpawn: probe.contextSpawn()

case .torture: try probe.torture()
case .durable, .buffered: try probe.logThenKill()
case .previous: try probe.previous()
case .quota: try probe.quota()
case .numbers: try probe.numbers()
case .lastWords: try probe.lastWords()
case .forge: try probe.forge()
case .stderr: try probe.stderrFromTwoProcesses()
case .childFprintf: probe.childFprintf()
case .jsonLines: try probe.jsonLines()
case .jsonSpans: try await probe.jsonSpans()
case .fatal: try probe.fatal()
case .fileSizeLimit: try probe.fileSizeLimit()
case .bootstrapThreads: try probe.bootstrapThreads()
case .sigwaitServer: try probe.sigwaitServer()

case .instance: try probe.instance()
case .logSteady: try probe.logSteady()
case .forkLog: try probe.forkLog()
case .flood: try probe.flood()
case .vanish: try probe.vanish()
case .emfile: try probe.emfile()
case .outlive: try probe.outlive()
case .closedStderr: try probe.closedStderr()
case .daemon: try probe.daemonRun()
case .exec: try probe.exec()
case .fullDisk: try probe.fullDisk()
case .soak: try probe.soak()

case .crash: try probe.crash()
case .reportRace: try probe.reportRace()
case .rotatingCrash: try probe.rotatingCrash()
case .crashPastPipeLimit: try probe.crashPastPipeLimit()
case .crashIntoFifos: try probe.crashIntoFifos()
case .crashInUnloadedSite: try probe.crashInUnloadedSite()
case .repairedFault: try probe.repairedFault()
case .consoleCrash: try probe.consoleCrash()
}
