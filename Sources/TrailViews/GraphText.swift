import TrailTrace

/// `trail graph`'s text, laid out as `uftrace graph` lays out its own: the backtraces, then the call graph
/// with a `+-` where a function called more than one other, `|` down to its next callee, and a blank line
/// between their subtrees.
public struct GraphText {
    public enum Field: String, Sendable, CaseIterable {
        case total, `self`
    }

    public var fields: [Field] = [.total, .self]
    /// Levels shown below each root, the root being 1; 0 for all.
    public var maxDepth = 0

    public init() {}

    public func render(_ graph: CallGraph) -> String {
        let output = TextOutput()
        for (index, entry) in graph.graphs.enumerated() {
            if index > 0 { output.append("\n") }
            render(entry, nodes: graph.nodes, into: output)
        }
        return output.text
    }

    private func render(_ entry: CallGraph.Graph, nodes: [CallGraph.Node], into output: TextOutput) {
        output.append("# Function Call Graph for '\(nodes[entry.root].name)'\n")
        output.append("=============== BACKTRACE ===============\n")
        for (number, backtrace) in entry.backtraces.enumerated() {
            output.append(
                " backtrace #\(number): hit \(backtrace.hits), time \(InfoText.trimmed(backtrace.time))\n")
            for (level, frame) in backtrace.frames.enumerated() { output.append("   [\(level)] \(frame)\n") }
            output.append("\n")
        }
        output.append("========== FUNCTION CALL GRAPH ==========\n")
        let titles = fields.map { $0 == .total ? "TOTAL TIME" : " SELF TIME" }
        output.append("# " + titles.joined(separator: "  ") + "   FUNCTION\n")
        node(entry.root, nodes: nodes, columns: [], branches: false, depth: 1, into: output)
    }

    /// `columns`: one per callee list above with more than one entry, true while that list goes on below.
    private func node(
        _ index: Int, nodes: [CallGraph.Node], columns: [Bool], branches: Bool, depth: Int, into output: TextOutput
    ) {
        let node = nodes[index]
        for field in fields {
            output.append("  ")
            output.append(duration: field == .total ? node.total : node.selfTime)
        }
        output.append(" : ")
        append(columns, branches: branches, into: output)
        output.append("(\(node.calls)) \(node.name)\n")
        guard maxDepth == 0 || depth < maxDepth else { return }
        let children = node.children
        guard children.count > 1 else {
            if let only = children.first {
                self.node(only, nodes: nodes, columns: columns, branches: false, depth: depth + 1, into: output)
            }
            return
        }
        for (position, child) in children.enumerated() {
            let more = position < children.count - 1
            self.node(child, nodes: nodes, columns: columns + [more], branches: true, depth: depth + 1, into: output)
            if more {
                output.append(spaces: 12 * fields.count)
                output.append(" : ")
                append(columns + [true], branches: false, into: output)
                output.append("\n")
            }
        }
    }

    private func append(_ columns: [Bool], branches: Bool, into output: TextOutput) {
        for (level, more) in columns.enumerated() {
            output.append(branches && level == columns.count - 1 ? " +-" : more ? " | " : "   ")
        }
    }
}
