import TrailTrace

/// `trail graph FUNC`: every call of the functions FUNC names, with the stack that reached it (its
/// backtrace) and what it called below, aggregated by path as uftrace's `graph` does. Built in one pass: an
/// open call keeps a frame (its name, its parent's frame and its graph node) only while it or a call under it
/// is open, so memory follows the call depth and the number of distinct paths, never the number of calls.
public struct CallGraph: CallVisitor {
    /// A function on one path below a graph's root; its children in the order they were first called.
    public struct Node: Sendable {
        public var name: String
        public var calls = 0
        public var total: Double = 0
        public var selfTime: Double = 0
        public var children: [Int] = []
        var childIndex: [String: Int] = [:]
    }

    /// One distinct stack that reached a root, outermost first, ending in the root's function.
    public struct Backtrace: Sendable {
        public var frames: [String]
        public var hits = 0
        public var time: Double = 0
    }

    /// A graph per function matched, in the order of their first calls.
    public struct Graph: Sendable {
        public var root: Int
        public var backtraces: [Backtrace] = []
        var backtraceIndex: [[String]: Int] = [:]
    }

    private struct Frame {
        var name: String
        var parent: Int32
        var node: Int32
        var graph: Int32
        var backtrace: Int32
        var openChildren: Int32 = 0
        var exited = false
    }

    let pattern: NamePattern
    let exactName: String?
    public private(set) var nodes: [Node] = []
    public private(set) var graphs: [Graph] = []
    private var graphByName: [String: Int] = [:]
    private var frames: [Frame] = []
    private var freeFrames: [Int32] = []
    /// Per site: 0 not yet asked, 1 matches, 2 does not.
    private var matchBySite: [UInt8] = []
    private var process: TraceProcess?

    /// `function` is a name, or a glob (`*`, `?`, comma-separated) naming several.
    public init(function: String) {
        pattern = NamePattern(function)
        exactName = function.contains(where: { "*?[,".contains($0) }) ? nil : function
    }

    public mutating func beginProcess(_ process: TraceProcess) {
        self.process = process
        frames.removeAll(keepingCapacity: true)
        freeFrames.removeAll(keepingCapacity: true)
    }

    public mutating func enter(_ call: CallEvent, parentTag: Int32) -> Int32 {
        guard let process else { return -1 }
        let name = process.name(call)
        let parent = parentTag >= 0 && Int(parentTag) < frames.count ? parentTag : -1
        var frame = Frame(name: name, parent: parent, node: -1, graph: -1, backtrace: -1)
        if parent >= 0, frames[Int(parent)].node >= 0 {
            frame.node = Int32(child(of: Int(frames[Int(parent)].node), named: name))
        } else if matches(call, name) {
            let graph = graphFor(name)
            frame.graph = Int32(graph)
            frame.node = Int32(graphs[graph].root)
            frame.backtrace = Int32(backtrace(in: graph, from: parent, ending: name))
        }
        if parent >= 0 { frames[Int(parent)].openChildren += 1 }
        if let free = freeFrames.popLast() {
            frames[Int(free)] = frame
            return free
        }
        frames.append(frame)
        return Int32(frames.count - 1)
    }

    public mutating func exit(_ call: CallEvent, tag: Int32) {
        guard let process, tag >= 0, Int(tag) < frames.count else { return }
        let frame = frames[Int(tag)]
        if frame.node >= 0 {
            let duration = process.nanoseconds(duration: call.duration)
            let ownTicks = call.duration > call.childTicks ? call.duration - call.childTicks : 0
            let own = process.nanoseconds(duration: ownTicks)
            nodes[Int(frame.node)].calls += 1
            nodes[Int(frame.node)].total += duration
            nodes[Int(frame.node)].selfTime += own
            if frame.backtrace >= 0 {
                graphs[Int(frame.graph)].backtraces[Int(frame.backtrace)].hits += 1
                graphs[Int(frame.graph)].backtraces[Int(frame.backtrace)].time += duration
            }
        }
        frames[Int(tag)].exited = true
        release(tag)
    }

    public mutating func endProcess(_ process: TraceProcess) {
        self.process = nil
    }

    /// A frame goes once its call ended and nothing under it is open; then its parent may go too.
    private mutating func release(_ tag: Int32) {
        var index = tag
        while index >= 0, frames[Int(index)].exited, frames[Int(index)].openChildren == 0 {
            let parent = frames[Int(index)].parent
            frames[Int(index)].exited = false
            frames[Int(index)].openChildren = -1
            freeFrames.append(index)
            if parent >= 0 { frames[Int(parent)].openChildren -= 1 }
            index = parent
        }
    }

    private mutating func matches(_ call: CallEvent, _ name: String) -> Bool {
        if call.isSpan { return exactName.map { $0 == name } ?? pattern.matches(name) }
        let site = Int(call.site)
        if site >= matchBySite.count {
            matchBySite.append(contentsOf: repeatElement(0, count: site + 1 - matchBySite.count))
        }
        if matchBySite[site] == 0 {
            matchBySite[site] = (exactName.map { $0 == name } ?? pattern.matches(name)) ? 1 : 2
        }
        return matchBySite[site] == 1
    }

    private mutating func graphFor(_ name: String) -> Int {
        if let graph = graphByName[name] { return graph }
        nodes.append(Node(name: name))
        graphs.append(Graph(root: nodes.count - 1))
        graphByName[name] = graphs.count - 1
        return graphs.count - 1
    }

    private mutating func child(of parent: Int, named name: String) -> Int {
        if let found = nodes[parent].childIndex[name] { return found }
        nodes.append(Node(name: name))
        nodes[parent].children.append(nodes.count - 1)
        nodes[parent].childIndex[name] = nodes.count - 1
        return nodes.count - 1
    }

    private mutating func backtrace(in graph: Int, from parent: Int32, ending name: String) -> Int {
        var stack = [name]
        var index = parent
        while index >= 0 {
            stack.append(frames[Int(index)].name)
            index = frames[Int(index)].parent
        }
        stack.reverse()
        if let found = graphs[graph].backtraceIndex[stack] { return found }
        graphs[graph].backtraces.append(Backtrace(frames: stack))
        graphs[graph].backtraceIndex[stack] = graphs[graph].backtraces.count - 1
        return graphs[graph].backtraces.count - 1
    }
}
