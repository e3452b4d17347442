import TrailFormat

public struct Replay: CallVisitor {
    struct Line {
        var call: CallEvent
        var parent: Int32
        var indent: Int32
        var shown: Bool
        var inScope: Bool
        var excluded = false
        var printed = false
    }

    let options: ReplayOptions
    let output: TextOutput
    var process: TraceProcess?
    var lines = SlotPool<Line>()
    var minimumTicks: UInt64 = 0
    /// Task numbers by task and creator span: the runtime reuses a finished task's address.
    var tasks: [TaskKey: UInt64] = [:]
    /// Child processes to print under their spawning calls, and this process's salt to name its calls.
    let tree: ProcessTree?
    var salt: UInt64 = 0
    /// Added to every line's indent: a nested process's lines sit below the call that started it.
    let baseIndent: Int32
    /// A nested process's roots are in the filter's scope when the call that started it is.
    let rootsInScope: Bool

    struct TaskKey: Hashable {
        var task: UInt64
        var creator: UInt64
    }

    public init(_ options: ReplayOptions, output: TextOutput, tree: ProcessTree? = nil) {
        self.init(options, output: output, tree: tree, baseIndent: 0, rootsInScope: false)
        output.append(
            options.showPid ? "# DURATION      PID      TID     FUNCTION\n" : "# DURATION     TID     FUNCTION\n")
    }

    init(_ options: ReplayOptions, output: TextOutput, tree: ProcessTree?, baseIndent: Int32, rootsInScope: Bool) {
        self.options = options
        self.output = output
        self.tree = tree.flatMap { $0.isEmpty ? nil : $0 }
        self.baseIndent = baseIndent
        self.rootsInScope = rootsInScope
    }

    public mutating func beginProcess(_ process: TraceProcess) {
        self.process = process
        if tree != nil { salt = ProcessTree.salt(of: process.file) }
        tasks.removeAll()
        minimumTicks = options.minDuration.map { UInt64(($0 / process.file.nanosecondsPerTick).rounded(.up)) } ?? 0
    }

    public mutating func enter(_ call: CallEvent, parentTag: Int32) -> Int32 {
        let process = process!
        let parent = parentTag >= 0 ? lines[parentTag] : nil
        let startsScope = options.filter.map { $0.matches(process.sites[call.site].name) } ?? (parent == nil)
        let inScope = (parent?.inScope ?? rootsInScope) || startsScope
        // A root line keeps its depth (calls above it were cut), except a child task's whose creator already
        // returned: it would read as nested in whatever call printed last.
        let indent: Int32 =
            if let parent, parent.inScope { parent.indent + 1 } else {
                options.filter == nil && call.parentSpanId == 0 ? call.depth : 0
            }
        var shown = inScope && (parent.map { $0.shown || startsScope } ?? true)
        if let maxDepth = options.maxDepth, indent >= maxDepth { shown = false }
        if let threads = options.threads, !threads.contains(process.threads[Int(call.thread)].tid) { shown = false }
        let excluded = (parent?.excluded ?? false) || (options.exclude?.matches(process.sites[call.site].name) ?? false)
        if excluded { shown = false }
        return lines.add(
            Line(call: call, parent: parentTag, indent: indent, shown: shown, inScope: inScope, excluded: excluded))
    }

    public mutating func exit(_ call: CallEvent, tag: Int32) {
        defer { lines.release(tag) }
        let line = lines[tag]
        guard line.shown, line.printed || call.duration >= minimumTicks else { return }
        let process = process!
        if let tree, case let children = tree.claimChildren(of: SpanIDMath.exported(call.spanId, salt: salt)),
            !children.isEmpty
        {
            openAncestors(of: tag)
            replay(children, indent: line.indent + 1, inScope: line.inScope)
        }
        if lines[tag].printed {
            prefix(
                duration: process.nanoseconds(duration: call.duration), thread: line.call.thread, indent: line.indent)
            if options.colors { output.append(Self.dim) }
            output.append("}" + outcome(call) + " /* ")
            output.append(process.name(call))
            output.append(" */")
            if options.colors { output.append(Self.reset) }
            spanSummary(call)
            returnedOn(call)
        } else {
            openAncestors(of: line.parent)
            prefix(duration: process.nanoseconds(duration: call.duration), thread: call.thread, indent: line.indent)
            output.append(shownName(call))
            output.append(outcome(call))
            output.append(byte: 0x3B)
            notes(call)
            spanSummary(call)
            returnedOn(call)
        }
        output.append(byte: 0x0A)
    }

    /// Child processes, each opened by a line naming it, their calls one level below `indent`.
    mutating func replay(_ files: [TraceFile], indent: Int32, inScope: Bool) {
        for file in files {
            output.append(spaces: 10)
            output.append(byte: 0x20)
            if options.showPid {
                output.append(UInt64(file.pid), width: 8)
                output.append(byte: 0x20)
            }
            output.append(byte: 0x5B)
            output.append(UInt64(file.pid), width: 6)
            output.append("] | ")
            output.append(spaces: Int(baseIndent + indent) * 2)
            output.append("[process \(file.pid) \(file.executableName)]\n")
            var nested = Replay(
                options, output: output, tree: tree, baseIndent: baseIndent + indent, rootsInScope: inScope)
            CallStream().read([file], into: &nested)
        }
    }

    /// Prints the opening lines of the calls above a line about to be printed, outermost first.
    mutating func openAncestors(of tag: Int32) {
        var chain: [Int32] = []
        var current = tag
        while current >= 0, lines[current].shown, !lines[current].printed {
            chain.append(current)
            current = lines[current].parent
        }
        for index in chain.reversed() {
            lines[index].printed = true
            let line = lines[index]
            prefix(duration: nil, thread: line.call.thread, indent: line.indent)
            output.append(shownName(line.call))
            output.append(" {")
            notes(line.call)
            output.append(byte: 0x0A)
        }
    }

    func prefix(duration: Double?, thread: Int32, indent: Int32) {
        let process = process!
        if let duration {
            let color = options.colors ? Self.color(nanoseconds: duration) : nil
            if let color { output.append(color) }
            output.append(duration: duration)
            if color != nil { output.append(Self.reset) }
        } else {
            output.append(spaces: 10)
        }
        output.append(byte: 0x20)
        if options.showPid {
            output.append(UInt64(process.pid), width: 8)
            output.append(byte: 0x20)
        }
        output.append(byte: 0x5B)
        output.append(UInt64(process.threads[Int(thread)].tid), width: 6)
        output.append("] | ")
        output.append(spaces: Int(baseIndent + indent) * 2)
    }

    static let dim = "\u{1B}[2m", reset = "\u{1B}[0m"

    /// The colour of a duration: red from a millisecond, yellow from ten microseconds, none below.
    static func color(nanoseconds: Double) -> String? {
        nanoseconds >= 1e6 ? "\u{1B}[31m" : nanoseconds >= 1e4 ? "\u{1B}[33m" : nil
    }

    mutating func notes(_ call: CallEvent) {
        if call.isSpan, process!.spanDetails[call.spanId]?.kind == .context {
            output.append(" [context]")
        } else if call.isSpan {
            output.append(" [span")
            if let kind = process!.spanDetails[call.spanId]?.kind, kind != .internal { output.append(" \(kind)") }
            output.append(byte: 0x5D)
        } else if call.isAsync {
            output.append(" [async]")
        }
        // A task is named where it starts: under its creator, or at its first root call.
        let key = TaskKey(task: call.task, creator: call.parentSpanId)
        if call.startsTask, call.parentSpanId != 0 || tasks[key] == nil {
            output.append(call.parentSpanId != 0 ? " [child task " : " [task ")
            output.append(taskNumber(key))
            output.append(byte: 0x5D)
        }
        if options.locations {
            let site = process!.sites[call.site]
            if !site.location.isEmpty { output.append(" (" + site.location + ")") }
        }
    }

    /// Tasks by number in order of first appearance, per process: addresses say nothing to a reader.
    mutating func taskNumber(_ key: TaskKey) -> UInt64 {
        if let number = tasks[key] { return number }
        let number = UInt64(tasks.count + 1)
        tasks[key] = number
        return number
    }

    /// A tracer span's attributes, status and events, at its end.
    func spanSummary(_ call: CallEvent) {
        let summary = process!.spanSummary(call)
        if !summary.isEmpty { output.append(" " + summary) }
    }

    func returnedOn(_ call: CallEvent) {
        if call.unfinished { output.append(" (unfinished)") }
        if call.isAsync, call.exitThread >= 0, call.exitThread != call.thread {
            output.append(" [returned on ")
            output.append(UInt64(process!.threads[Int(call.exitThread)].tid))
            output.append(byte: 0x5D)
        }
    }
}
