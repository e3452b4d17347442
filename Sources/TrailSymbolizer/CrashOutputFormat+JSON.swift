import TrailFormat

#if canImport(Glibc)
import Glibc
#endif

/// `--format json`: close to the Swift backtracer's JSON crash log.
extension CrashOutputFormat {
    static func json(_ crash: SymbolizedCrash) -> String {
        let block = crash.block
        let q = JSONString.quote
        var frames: [String] = []
        for frame in crash.frames {
            let kind = frame.isReturnAddress ? "returnAddress" : "programCounter"
            if frame.frames.isEmpty {
                frames.append(
                    "{\"kind\":\"\(kind)\",\"address\":\(q(hex(frame.address))),\"image\":\(q(frame.image ?? ""))}")
            }
            for symbolized in frame.frames {
                var fields = [
                    "\"kind\":\"\(kind)\"", "\"address\":\(q(hex(frame.address)))",
                    "\"symbol\":\(q(symbolized.mangledName))",
                    "\"description\":\(q(symbolized.function))", "\"image\":\(q(frame.image ?? ""))",
                ]
                if let offset = symbolized.offset, !symbolized.inlined { fields.append("\"offset\":\(offset)") }
                if symbolized.inlined { fields.append("\"inlined\":true") }
                if let file = symbolized.file, symbolized.line > 0 {
                    fields.append(
                        "\"sourceLocation\":{\"file\":\(q(file)),\"line\":\(symbolized.line),\"column\":\(symbolized.column)}"
                    )
                }
                frames.append("{" + fields.joined(separator: ",") + "}")
            }
        }
        let images = block.images.map { image in
            "{\"name\":\(q(image.path.split(separator: "/").last.map(String.init) ?? image.path)),\"path\":\(q(image.path)),"
                + "\"buildId\":\(q(image.buildID ?? "")),\"baseAddress\":\(q(hex(image.base))),\"endOfText\":\(q(hex(image.end)))}"
        }
        let crumbs = block.breadcrumbs.map {
            "{\"offset\":\(q($0.offset)),\"event\":\(q($0.event)),\"site\":\(q($0.site))}"
        }
        var fields = [
            "\"kind\":\(q(block.kind == .crash ? "crashReport" : "errorReport"))",
            "\"timestamp\":\(q(block.time ?? ""))",
            "\"description\":\(q(headline(block)))",
            "\"architecture\":\(q(Self.architecture))",
            "\"platform\":\"Linux\"",
        ]
        if let address = block.signal?.address { fields.append("\"faultAddress\":\(q(address))") }
        if let signal = block.signal {
            fields.append(
                "\"signal\":{\"number\":\(signal.number),\"name\":\(q(signal.name)),\"code\":\(q(signal.code ?? ""))}")
        }
        if let app = block.app { fields.append("\"app\":\(q(app))") }
        // a number, unless the log is odd
        if let pid = block.pid { fields.append("\"pid\":\(Int(pid).map(String.init) ?? q(pid))") }
        fields.append("\"complete\":\(block.complete)")
        let thread = block.thread
        fields.append(
            "\"threads\":[{\"crashed\":true,\"id\":\(q(thread?.tid ?? "")),\"name\":\(q(thread?.name ?? "")),\"frames\":[\(frames.joined(separator: ","))]}]"
        )
        fields.append("\"images\":[\(images.joined(separator: ","))]")
        fields.append("\"breadcrumbs\":[\(crumbs.joined(separator: ","))]")
        fields.append("\"openCalls\":[\(block.openCalls.map(q).joined(separator: ","))]")
        fields.append("\"notes\":[\(crash.notes.map(q).joined(separator: ","))]")
        return "{" + fields.joined(separator: ",") + "}"
    }
}
