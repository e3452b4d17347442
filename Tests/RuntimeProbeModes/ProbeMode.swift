/// What `trail-probe MODE DIRECTORY [ARGUMENTS...]` (Tests/RuntimeProbe) does: one case per mode, its raw value
/// the word on the command line. The probe and the tests that run it share this module, so a mode renamed or
/// removed fails to compile on both sides instead of failing at run time with "unknown mode".
public enum ProbeMode: String, CaseIterable, Sendable {
    // SettingsModes.swift: start-up settings as C and Swift read them.
    case settings
    case defaultFolder = "default-folder"
    case civilDates = "civil-dates"

    // RecorderModes.swift: traced calls into record mode's trace.
    case calls
    case async
    case tasks
    case span
    case steady
    case forkCalls = "fork-calls"
    case shortThreads = "short-threads"
    case firstCalls = "first-calls"
    case traceUnwritable = "trace-unwritable"
    case traceDiskFull = "trace-diskfull"
    case traceThen = "trace-then"
    case exitThenSignal = "exit-then-signal"

    // ProcessTreeModes.swift: children and W3C trace context across processes.
    case spawnChild = "spawn-child"
    case spawnMany = "spawn-many"
    case context
    case contextSpawn = "context-spawn"

    // LoggerModes.swift: the logger in one process.
    case torture
    case durable
    case buffered
    case previous
    case quota
    case numbers
    case lastWords = "last-words"
    case forge
    case stderr
    case childFprintf = "child-fprintf"
    case jsonLines = "json-lines"
    case jsonSpans = "json-spans"
    case fatal
    case fileSizeLimit = "file-size-limit"
    case bootstrapThreads = "bootstrap-threads"
    case sigwaitServer = "sigwait-server"

    // OperatorDayModes.swift and SoakMode.swift: an operator's day of instances, forks, floods on fd 2, folders
    // that vanish, descriptors and disks that run out.
    case instance
    case logSteady = "log-steady"
    case forkLog = "fork-log"
    case flood
    case vanish
    case emfile
    case outlive
    case closedStderr = "closed-stderr"
    case daemon
    case exec
    case fullDisk = "full-disk"
    case soak

    // CrashModes.swift: crashes and the conditions a crash handler must neither hang on nor lose a crash to.
    case crash
    case reportRace = "report-race"
    case rotatingCrash = "rotating-crash"
    case crashPastPipeLimit = "crash-past-pipe-limit"
    case crashIntoFifos = "crash-into-fifos"
    case crashInUnloadedSite = "crash-in-unloaded-site"
    case repairedFault = "repaired-fault"
    case consoleCrash = "console-crash"
}

/// How `crash` crashes, its first argument.
public enum CrashMethod: String, CaseIterable, Sendable {
    case segv, abort, fatal, trap, traced
    case lateLibrary = "late-library"
    case relativeLibrary = "relative-library"
    case threadOverflow = "thread-overflow"
    case dispatchOverflow = "dispatch-overflow"
    case foundationOverflow = "foundation-overflow"
    case twoThreads = "two-threads"
    case badCall = "bad-call"
    case emptyMapping = "empty-mapping"
    case forkedChild = "forked-child"
}

/// How `trace-then` ends after its traced calls.
public enum TraceThenEnd: String, CaseIterable, Sendable {
    case segv, abort, fatal, sigterm, sigint, pipe
}

/// How `trace-unwritable` ends: a fatal `Trail.report`, or `exit`.
public enum UnwritableTraceEnd: String, CaseIterable, Sendable {
    case fatal, exit
}

/// The termination signal `last-words` sends itself.
public enum LastWordsSignal: String, CaseIterable, Sendable {
    case term, int, hup
}

/// Who floods fd 2 in `flood`: this process with write(2), or a child shell that inherited it.
public enum FloodSource: String, CaseIterable, Sendable {
    case write, child
}

/// What `vanish` deletes under the logger.
public enum VanishingPart: String, CaseIterable, Sendable {
    case folder, file
}

/// How `outlive` ends while its child still writes to the inherited fd 2.
public enum OutliveEnd: String, CaseIterable, Sendable {
    case exit, segv
}

/// How a `soak` worker ends (Tests/Soak/soak.py passes these).
public enum SoakEnd: String, CaseIterable, Sendable {
    case exit, segv, abort, fatal, term, wait
}

/// What `repaired-fault`'s own SIGSEGV handler does: make the page writable and return, or only return.
public enum FaultHandling: String, CaseIterable, Sendable {
    case repair
    case `return`
}

/// `console-crash`'s destination: the console, or `automatic` (decided by stderr).
public enum ConsoleDestination: String, CaseIterable, Sendable {
    case console, automatic
}
