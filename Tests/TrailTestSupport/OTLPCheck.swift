import Foundation

/// Tests/otlp_check.py over a file of requests: its summary line, or the whole output when it failed.
public func otlpCheck(_ signal: String, _ path: String, _ expected: [String] = []) throws -> String {
    let result = try run("python3", [Paths.packageRoot + "/Tests/otlp_check.py", signal, path] + expected)
    if result.stderr.contains("No module named") {
        return "opentelemetry-proto is missing: `make test` installs it (pip install opentelemetry-proto)"
    }
    return result.status == 0
        ? result.stdout.trimmingCharacters(in: .whitespacesAndNewlines) : result.stdout + result.stderr
}

/// The spans of one OTLP/JSON ExportTraceServiceRequest, each with its resource's `process.pid` under "pid".
public func otlpSpans(_ request: [String: Any]) -> [[String: Any]] {
    var spans: [[String: Any]] = []
    for resource in request["resourceSpans"] as? [[String: Any]] ?? [] {
        let attributes = (resource["resource"] as? [String: Any])?["attributes"] as? [[String: Any]] ?? []
        let pid = attributes.first { $0["key"] as? String == "process.pid" }.flatMap {
            ($0["value"] as? [String: Any])?["intValue"] as? String
        }
        for scope in resource["scopeSpans"] as? [[String: Any]] ?? [] {
            for var span in scope["spans"] as? [[String: Any]] ?? [] {
                span["pid"] = pid
                spans.append(span)
            }
        }
    }
    return spans
}

/// Every span of a file of requests, one per line.
public func otlpSpans(inFile path: String) throws -> [[String: Any]] {
    try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").flatMap { line -> [[String: Any]] in
        guard let request = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
            throw OTLPFileError("\(path): a line that is not a JSON object")
        }
        return otlpSpans(request)
    }
}

struct OTLPFileError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
