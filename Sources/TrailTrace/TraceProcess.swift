import TrailFormat

/// One process being read: its file, its threads so far, and its clock.
public final class TraceProcess {
    public struct Thread: Sendable {
        public var slot: UInt32
        public var tid: UInt32
        public var name: String = ""
        public var dropped: UInt64 = 0
    }

    public let file: TraceFile
    public let sites: SiteTable
    public internal(set) var threads: [Thread] = []
    /// The last record's time, for calls that never returned.
    public internal(set) var lastTicks: UInt64 = 0
    /// Records the writer lost (buffers full) and records the reader could not place.
    public internal(set) var dropped: UInt64 = 0
    /// The details of the tracer spans open now (start and end merged), by span id; a viewer reads them at a
    /// span's enter and exit.
    public internal(set) var spanDetails: [UInt64: SpanDetails] = [:]
    /// The recorded values of the synchronous calls open now (CallBuilder+Values), by span id: a viewer reads them
    /// up to a call's exit.
    public internal(set) var callValues: [UInt64: [CallValue]] = [:]

    init(file: TraceFile, sites: SiteTable) {
        self.file = file
        self.sites = sites
        lastTicks = file.header.ticks
    }

    public var pid: UInt32 { file.pid }

    /// A call's name: a tracer span's own (it may be renamed after it starts), else its site's.
    public func name(_ call: CallEvent) -> String {
        if call.isSpan, let name = spanDetails[call.spanId]?.name { return name }
        return sites[call.site].name
    }

    /// A tracer span's details as viewers print them, `{key=value, ...}` with its status, events, links and
    /// remote parent; empty for a call.
    public func spanSummary(_ call: CallEvent) -> String {
        guard call.isSpan, let details = spanDetails[call.spanId] else { return "" }
        var parts: [String] = []
        if let status = details.status {
            parts.append(
                (status.code == 2 ? "error" : status.code == 1 ? "ok" : "unset")
                    + (status.message.map { ": " + $0 } ?? ""))
        }
        // The code attributes say where it was opened, which the site already does.
        parts += details.attributes.filter { !$0.key.hasPrefix("code.") }.map { "\($0.key)=\($0.value)" }
        parts += details.events.map { event in
            "event " + event.name
                + (event.attributes.isEmpty
                    ? "" : "(" + event.attributes.map { "\($0.key)=\($0.value)" }.joined(separator: ", ") + ")")
        }
        if let remote = details.remoteParent {
            parts.append("remote parent " + Self.hex(remote.traceID) + "/" + Self.hex(remote.spanID))
        }
        parts += details.links.map { "link " + Self.hex($0.traceID) + "/" + Self.hex($0.spanID) }
        return parts.isEmpty ? "" : "{" + parts.joined(separator: ", ") + "}"
    }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// Nanoseconds since this process started recording.
    @inlinable public func nanoseconds(_ ticks: UInt64) -> Double { file.nanoseconds(ticks) }
    /// Nanoseconds for a tick count.
    @inlinable public func nanoseconds(duration ticks: UInt64) -> Double { Double(ticks) * file.nanosecondsPerTick }
    /// Unix time in nanoseconds. The offset is added as an integer: a Double holds Unix nanoseconds only to the
    /// nearest 256, which made short spans last zero.
    public func wallNanoseconds(_ ticks: UInt64) -> UInt64 {
        let exact = file.nanoseconds(ticks).rounded()
        let offset = exact.isFinite ? Int64(max(-4e18, min(4e18, exact))) : 0
        let wall = Int64(bitPattern: file.startWallNanoseconds) &+ offset
        return wall < 0 ? 0 : UInt64(wall)
    }
}
