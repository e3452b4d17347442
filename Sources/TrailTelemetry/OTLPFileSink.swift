import TrailFormat

#if canImport(Glibc)
import Glibc
#endif

/// Requests as NDJSON: one whole `Export…ServiceRequest` per line, the shape the Collector's file exporter
/// writes and its `otlpjsonfile` receiver reads. An export that fits one batch is one line, so the file is
/// then also a single JSON document. A file is replaced only when the export finishes: one that fails leaves
/// the old file as it was.
public final class OTLPFileSink: RequestSink {
    /// One JSON request per line (NDJSON), as the Collector's file exporter writes them.
    public var encoding: OTLPEncoding { .json }
    private let fd: Int32
    private let path: String
    private let output: AtomicFile?

    /// Standard output.
    public init() {
        fd = 1
        path = "standard output"
        output = nil
    }

    /// A new file (replacing one that exists when the export finishes), 0644.
    public init(path: String) throws(ExportFailure) {
        do {
            output = try AtomicFile(path: path)
        } catch {
            throw ExportFailure("cannot write \(error)")
        }
        fd = output!.descriptor
        self.path = path
    }

    private var written = 0

    public func send(_ request: [UInt8], items: Int, signal: TelemetrySignal) throws {
        guard writeAll(request + [10]) else {
            throw ExportFailure("cannot write \(path): \(String(cString: strerror(errno)))")
        }
        written += request.count + 1
    }

    public func finish(_ summary: ExportSummary) throws -> ExportSummary {
        do {
            try output?.commit()
        } catch {
            throw ExportFailure("cannot write \(error)", unsent: summary.items)
        }
        var summary = summary
        summary.bytes = written
        return summary
    }

    private func writeAll(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if count < 0, errno == EINTR { continue }
            if count <= 0 { return false }
            offset += count
        }
        return true
    }
}
