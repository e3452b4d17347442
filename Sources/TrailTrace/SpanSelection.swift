import TrailFormat

/// The calls worth sending to a tracing backend, chosen as they stream by: millions of microsecond calls
/// swamp any backend, so calls shorter than `minDuration`, or outside `filter`'s scope, are left out; with
/// `fold`, each left-out call is counted into the nearest exported call above it instead (calls and time).
/// A call is kept whenever one of its children is, so every exported parent id names an exported span; a
/// child task that outlives an unexported creator becomes a root.
public struct SpanSelection: CallVisitor {
    /// One call to export.
    public struct Selected {
        public var call: CallEvent
        /// The nearest exported call above it; 0 for a root.
        public var parentSpanId: UInt64
        /// Calls folded into it, and their time in ticks.
        public var foldedCalls = 0
        public var foldedTicks: UInt64 = 0
        /// The trace it belongs to when not its process's: a tracer span's remote parent's, inherited by
        /// everything below it.
        public var traceID: [UInt8]?
        /// A tracer span's parent in another process (as exported there), which stands for `parentSpanId`.
        public var remoteParent: UInt64?
        /// A tracer span's details (name, kind, attributes, events, links, status).
        public var details: SpanDetails?
    }

    struct Node {
        var parent: Int32
        var spanId: UInt64
        var inScope: Bool
        /// Index into `traces`; -1: the process's own trace.
        var trace: Int32 = -1
        /// A trace context (`Trail.withTraceContext`): not exported; its calls go under `remoteSpan`.
        var isContext = false
        var remoteSpan: UInt64 = 0
        var forced = false
        var foldedCalls = 0
        var foldedTicks: UInt64 = 0
    }

    public var minDuration: Double = 0
    public var filter: NamePattern?
    public var fold = false
    public private(set) var kept = 0
    public private(set) var left = 0

    let beginProcess: (TraceProcess) -> Void
    let span: (Selected, TraceProcess) -> Void
    let endProcess: (TraceProcess) -> Void
    var process: TraceProcess?
    var minimumTicks: UInt64 = 0
    var nodes = SlotPool<Node>()
    /// Exported async calls, for child tasks that end after them. Bounded.
    var exportedAsync = Set<UInt64>()
    var exportedOrder: [UInt64] = []
    var exportedNext = 0
    /// Trace ids from remote parents, each once.
    var traces: [[UInt8]] = []
    var traceIndex: [[UInt8]: Int32] = [:]

    public init(
        beginProcess: @escaping (TraceProcess) -> Void, span: @escaping (Selected, TraceProcess) -> Void,
        endProcess: @escaping (TraceProcess) -> Void
    ) {
        self.beginProcess = beginProcess
        self.span = span
        self.endProcess = endProcess
    }

    public mutating func beginProcess(_ process: TraceProcess) {
        self.process = process
        minimumTicks = UInt64((minDuration / process.file.nanosecondsPerTick).rounded(.up))
        exportedAsync.removeAll()
        exportedOrder.removeAll()
        exportedNext = 0
        beginProcess(process)
    }

    public mutating func endProcess(_ process: TraceProcess) { endProcess(process) }

    public mutating func enter(_ call: CallEvent, parentTag: Int32) -> Int32 {
        let parentInScope = parentTag >= 0 && nodes[parentTag].inScope
        let inScope = parentInScope || (filter.map { $0.matches(process!.sites[call.site].name) } ?? true)
        var node = Node(parent: parentTag, spanId: call.spanId, inScope: inScope)
        if call.isSpan, let details = process!.spanDetails[call.spanId], let remote = details.remoteParent {
            if details.kind == .context {
                node.isContext = true
                node.remoteSpan = remote.spanID
            }
            node.trace =
                traceIndex[remote.traceID]
                ?? {
                    traces.append(remote.traceID)
                    traceIndex[remote.traceID] = Int32(traces.count - 1)
                    return Int32(traces.count - 1)
                }()
        } else if parentTag >= 0 {
            node.trace = nodes[parentTag].trace
        }
        return nodes.add(node)
    }

    public mutating func exit(_ call: CallEvent, tag: Int32) {
        defer { nodes.release(tag) }
        let node = nodes[tag]
        guard node.inScope, !node.isContext else { return }
        guard node.forced || call.isSpan || call.duration >= minimumTicks else {
            left += 1
            if fold, node.parent >= 0, nodes[node.parent].inScope {
                nodes[node.parent].foldedCalls += 1 + node.foldedCalls
                nodes[node.parent].foldedTicks &+= call.duration
            }
            return
        }
        var parentSpanId: UInt64 = 0
        var contextParent: UInt64?
        if node.parent >= 0 {
            if nodes[node.parent].isContext {
                contextParent = nodes[node.parent].remoteSpan
            } else if nodes[node.parent].inScope {
                nodes[node.parent].forced = true
                parentSpanId = nodes[node.parent].spanId
            }
        } else if call.parentSpanId != 0, exportedAsync.contains(call.parentSpanId) {
            parentSpanId = call.parentSpanId
        }
        if call.isAsync { rememberExported(call.spanId) }
        kept += 1
        var selected = Selected(
            call: call, parentSpanId: parentSpanId, foldedCalls: node.foldedCalls, foldedTicks: node.foldedTicks)
        if node.trace >= 0 { selected.traceID = traces[Int(node.trace)] }
        if call.isSpan, let details = process!.spanDetails[call.spanId] {
            selected.details = details
            if let remote = details.remoteParent { selected.remoteParent = remote.spanID }
        }
        if let contextParent { selected.remoteParent = contextParent }
        span(selected, process!)
    }

    mutating func rememberExported(_ spanId: UInt64) {
        if exportedOrder.count < 1 << 16 {
            exportedOrder.append(spanId)
        } else {
            exportedAsync.remove(exportedOrder[exportedNext])
            exportedOrder[exportedNext] = spanId
            exportedNext = (exportedNext + 1) % exportedOrder.count
        }
        exportedAsync.insert(spanId)
    }
}
