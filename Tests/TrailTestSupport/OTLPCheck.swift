import Foundation


/// Tests/otlp_check.py over a file of requests: its summary line, or the whole output when it failed.
public func otlpCheck(_ signal: String, _ path: String, _ expected: [String] = []) throws -> String {
    let result = try run("python3", [Paths.packageRoot + "/Tests/otlp_check.py", signal, path] + expected)
    if result.stderr.contains("No module named") {
        return "opentelemetry-proto is missing: `make test` installs it (pip install opentelemetry-proto)"
    }
    return result.status == 0 ? result.stdout.trimmingCharacters(in: .whitespacesAndNewlines) : result.stdout + result.stderr
}
