import Foundation

/// A self-contained, interactive SVG flame graph: stacks merged by name, widths by time. Click a frame to
/// zoom into it, click the root or press Escape to zoom out, and search names with the Search button or
/// Ctrl-F; hovering shows each frame's time and share.
public struct FlameGraph: CallVisitor {
    final class Node {
        let name: String
        var total: Double = 0
        var calls = 0
        var children: [String: Node] = [:]
        var order: [String] = []
        init(_ name: String) { self.name = name }

        func child(_ name: String) -> Node {
            if let existing = children[name] { return existing }
            let node = Node(name)
            children[name] = node
            order.append(name)
            return node
        }
    }

    /// Stacks merged as they stream by: one node per distinct path of sites, keyed by parent and site.
    struct PathNode {
        var site: Int32
        var parent: Int32
        var nanoseconds: Double = 0
        var calls = 0
    }

    var paths: [PathNode] = [PathNode(site: -1, parent: -1)]
    var childOf: [UInt64: Int32] = [:]
    var process: TraceProcess?
    var sites: SiteTable?

    public init() {}

    public mutating func beginProcess(_ process: TraceProcess) {
        self.process = process
        sites = process.sites
    }

    public mutating func enter(_ call: CallEvent, parentTag: Int32) -> Int32 {
        let parent = parentTag >= 0 ? parentTag : 0
        let key = UInt64(UInt32(bitPattern: parent)) << 32 | UInt64(UInt32(bitPattern: call.site))
        if let node = childOf[key] { return node }
        let node = Int32(paths.count)
        paths.append(PathNode(site: call.site, parent: parent))
        childOf[key] = node
        return node
    }

    public mutating func exit(_ call: CallEvent, tag: Int32) {
        paths[Int(tag)].nanoseconds += process!.nanoseconds(duration: call.duration)
        paths[Int(tag)].calls += 1
    }

    /// The merged stacks as a tree of names, each node's total its calls' time at that path.
    func tree() -> Node {
        let root = Node("all")
        var nodes: [Node] = [root]
        nodes.reserveCapacity(paths.count)
        for path in paths.dropFirst() {
            let node = nodes[Int(path.parent)].child(sites![path.site].name)
            node.total += path.nanoseconds
            node.calls += path.calls
            nodes.append(node)
        }
        root.total = root.order.reduce(0) { $0 + root.children[$1]!.total }
        return root
    }

    /// Folded stacks, one line per path (`a;b;c value`), sorted: the input of flamegraph.pl and speedscope.
    /// The value is the path's self time in whole microseconds, or its number of calls.
    public func folded(calls: Bool) -> String {
        var lines: [String] = []
        // Depth-first without recursion: stacks can be deeper than this process's.
        var pending: [(node: Node, prefix: String)] = [(tree(), "")]
        while let (node, prefix) = pending.popLast() {
            for name in node.order {
                let child = node.children[name]!
                let path = prefix.isEmpty ? name : prefix + ";" + name
                let childTime = child.children.values.reduce(0) { $0 + $1.total }
                let value = calls ? child.calls : Int((max(0, child.total - childTime) / 1000).rounded())
                lines.append("\(path) \(value)")
                pending.append((child, path))
            }
        }
        return lines.sorted().map { $0 + "\n" }.joined()
    }

    public func render(title: String = "Flame graph") -> String {
        let root = tree()
        let width = 1200.0
        let frameHeight = 17.0
        let top = 60.0
        var frames: [String] = []
        var maxDepth = 0
        // Lay out frames left to right, children in alphabetical order as flame graphs do.
        var layout: [(node: Node, x: Double, depth: Int)] = [(root, 0, 0)]
        while let (node, x, depth) = layout.popLast() {
            maxDepth = max(maxDepth, depth)
            let fraction = root.total > 0 ? node.total / root.total : 0
            let share = String(format: "%.2f%%", fraction * 100)
            let label =
                "\(node.name) (\(DurationFormat.format(node.total).trimmingCharacters(in: .whitespaces)), \(share))"
            // Static geometry, the same as the script's first draw, so viewers without scripts show it too.
            let pixelX = x * width
            let pixelWidth = fraction * width
            let y = top + Double(depth) * frameHeight
            let geometry = String(
                format: "x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\"",
                pixelX, y, max(0, pixelWidth - 0.5), frameHeight - 1)
            let textPosition = String(format: "x=\"%.2f\" y=\"%.1f\"", pixelX + 3, y + frameHeight - 5)
            frames.append(
                """
                <g class="f\(pixelWidth < 0.5 ? " hidden" : "")" data-x="\(x)" data-w="\(fraction)" data-d="\(depth)">\
                <title>\(Self.escape(label))</title><rect \(geometry) rx="2" ry="2" fill="\(Self.color(node.name, depth: depth))"/>\
                <text \(textPosition)>\(Self.escape(Self.fitted(node.name, pixelWidth)))</text></g>
                """)
            var cursor = x
            for name in node.order.sorted() {
                let child = node.children[name]!
                layout.append((child, cursor, depth + 1))
                cursor += root.total > 0 ? child.total / root.total : 0
            }
        }
        let height = top + Double(maxDepth + 1) * frameHeight + 30
        return """
            <?xml version="1.0" standalone="no"?>
            <svg version="1.1" width="\(Int(width))" height="\(Int(height))" viewBox="0 0 \(Int(width)) \(Int(height))" \
            xmlns="http://www.w3.org/2000/svg" onload="init(evt)">
            <style>
            text { font-family: Verdana, sans-serif; font-size: 12px; fill: #000; pointer-events: none; }
            .f rect { stroke: #fff; stroke-width: 0.5; cursor: pointer; }
            .f:hover rect { stroke: #000; stroke-width: 1; }
            .hidden { display: none; }
            #title { font-size: 17px; text-anchor: middle; }
            .button { cursor: pointer; fill: #555; }
            </style>
            <rect width="100%" height="100%" fill="#f8f8f8"/>
            <text id="title" x="\(Int(width / 2))" y="24">\(Self.escape(title))</text>
            <text id="details" x="10" y="\(Int(height - 10))"> </text>
            <text id="reset" class="button hidden" x="10" y="24">Reset Zoom</text>
            <text id="search" class="button" x="\(Int(width - 110))" y="24">Search</text>
            <text id="matched" x="\(Int(width - 110))" y="\(Int(height - 10))"> </text>
            <g id="frames" data-top="\(top)" data-height="\(frameHeight)" data-width="\(width)">
            \(frames.joined(separator: "\n"))
            </g>
            <script type="text/ecmascript"><![CDATA[
            \(Self.script)
            ]]></script>
            </svg>

            """
    }

    /// The label cut to what a frame this wide shows (about 7 px a character), as the script does.
    static func fitted(_ name: String, _ pixelWidth: Double) -> String {
        let fit = Int(((pixelWidth - 6) / 7).rounded(.down))
        if fit < 3 { return "" }
        return name.count <= fit ? name : String(name.prefix(fit - 2)) + ".."
    }

    /// Warm colours, stable per name, a little lighter with depth.
    static func color(_ name: String, depth: Int) -> String {
        var hash: UInt32 = 2_166_136_261
        for byte in name.utf8 { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        let red = 205 + Int(hash % 50)
        let green = 80 + Int((hash >> 8) % 130)
        let blue = 40 + Int((hash >> 16) % 40)
        return "rgb(\(red),\(green),\(blue))"
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    static let script = """
        // Everything lives in a closure: a global named `top` would be the read-only `window.top`.
        var flameGraph = (function () {
        var frames, width, top, height, zoomed = null, term = null;
        function init(evt) {
          var group = document.getElementById("frames");
          width = +group.getAttribute("data-width"); top = +group.getAttribute("data-top");
          height = +group.getAttribute("data-height");
          frames = Array.prototype.slice.call(group.getElementsByTagName("g"));
          frames.forEach(function (g) {
            g.addEventListener("click", function () { zoom(g); });
            g.addEventListener("mouseover", function () { details(g.getElementsByTagName("title")[0].textContent); });
            g.addEventListener("mouseout", function () { details(" "); });
          });
          document.getElementById("reset").addEventListener("click", function () { zoom(frames[0]); });
          document.getElementById("search").addEventListener("click", function () { search(); });
          window.addEventListener("keydown", function (e) {
            if (e.key === "Escape") zoom(frames[0]);
            if ((e.ctrlKey || e.metaKey) && e.key === "f") { e.preventDefault(); search(); }
          });
          draw(0, 1, 0);
        }
        function details(text) { document.getElementById("details").textContent = text; }
        function draw(x0, w0, d0) {
          var scale = width / w0;
          frames.forEach(function (g) {
            var x = +g.getAttribute("data-x"), w = +g.getAttribute("data-w"), d = +g.getAttribute("data-d");
            var inside = x >= x0 - 1e-12 && x + w <= x0 + w0 + 1e-12;
            var ancestor = d < d0 && x <= x0 + 1e-12 && x + w >= x0 + w0 - 1e-12;
            var rect = g.getElementsByTagName("rect")[0], text = g.getElementsByTagName("text")[0];
            if (!(inside || ancestor) || (inside && w * scale < 0.5)) { g.classList.add("hidden"); return; }
            g.classList.remove("hidden");
            var px = ancestor ? 0 : (x - x0) * scale, pw = ancestor ? width : w * scale;
            var y = top + d * height;
            rect.setAttribute("x", px); rect.setAttribute("y", y);
            rect.setAttribute("width", Math.max(0, pw - 0.5)); rect.setAttribute("height", height - 1);
            text.setAttribute("x", px + 3); text.setAttribute("y", y + height - 5);
            var name = g.getElementsByTagName("title")[0].textContent.replace(/ \\([^()]*\\)$/, "");
            var fit = Math.floor((pw - 6) / 7);
            text.textContent = fit < 3 ? "" : (name.length <= fit ? name : name.substring(0, fit - 2) + "..");
            rect.setAttribute("opacity", ancestor ? "0.6" : "1");
          });
        }
        function zoom(g) {
          zoomed = g === frames[0] ? null : g;
          document.getElementById("reset").classList.toggle("hidden", zoomed === null);
          if (!zoomed) { draw(0, 1, 0); return; }
          draw(+g.getAttribute("data-x"), +g.getAttribute("data-w"), +g.getAttribute("data-d"));
        }
        function search() {
          var text = prompt("Search for (regular expression):", term || "");
          if (text === null) return;
          term = text;
          var pattern = null;
          try { pattern = text ? new RegExp(text) : null; } catch (e) { alert("Bad pattern: " + e.message); return; }
          var covered = [], total = 0;
          frames.forEach(function (g, i) {
            var rect = g.getElementsByTagName("rect")[0];
            if (!rect.hasAttribute("data-fill")) rect.setAttribute("data-fill", rect.getAttribute("fill"));
            var name = g.getElementsByTagName("title")[0].textContent.replace(/ \\([^()]*\\)$/, "");
            var hit = pattern && i > 0 && pattern.test(name);
            rect.setAttribute("fill", hit ? "rgb(230,0,230)" : rect.getAttribute("data-fill"));
            if (!hit) return;
            var x = +g.getAttribute("data-x"), w = +g.getAttribute("data-w");
            // Count nested matches once: keep only frames not inside another match.
            if (covered.some(function (c) { return x >= c[0] - 1e-12 && x + w <= c[0] + c[1] + 1e-12; })) return;
            covered.push([x, w]); total += w;
          });
          document.getElementById("matched").textContent = pattern ? "Matched: " + (total * 100).toFixed(1) + "%" : " ";
        }
        return { init: init };
        })();
        function init(evt) { flameGraph.init(evt); }
        """
}
