/// What a trace's SPAN chunk says of a tracer span (TrailTracing) beyond its records: written by the runtime at
/// the span's start (kind, parents) and end (final name, attributes, events, links, status), read by every
/// viewer. Binary, little-endian: a list of fields, each a one-byte tag and its value (Docs/trace-format.md,
/// "Tracer spans"); a reader skips what it does not know only by stopping, so new tags go last.
public struct SpanDetails: Sendable, Equatable {
    /// OTLP's SpanKind numbers; 0 is a trace context (`Trail.withTraceContext`): not a span of its own, its
    /// calls go under its remote parent.
    public enum Kind: UInt8, Sendable {
        case context = 0
        case `internal` = 1
        case server = 2
        case client = 3
        case producer = 4
        case consumer = 5
    }

    public enum Value: Sendable, Equatable {
        case string(String)
        case int(Int64)
        case double(Double)
        case bool(Bool)
        case strings([String])
        case ints([Int64])
        case doubles([Double])
        case bools([Bool])
    }

    public struct Attribute: Sendable, Equatable {
        public var key: String
        public var value: Value
        public init(_ key: String, _ value: Value) {
            self.key = key
            self.value = value
        }
    }

    public struct Event: Sendable, Equatable {
        public var name: String
        /// Unix time in nanoseconds.
        public var time: UInt64
        public var attributes: [Attribute]
        public init(name: String, time: UInt64, attributes: [Attribute] = []) {
            self.name = name
            self.time = time
            self.attributes = attributes
        }
    }

    /// A span in another trace or process: 16 trace id bytes and a span id (as exported).
    public struct Remote: Sendable, Equatable {
        public var traceID: [UInt8]
        public var spanID: UInt64
        public var sampled: Bool
        public var attributes: [Attribute]
        public init(traceID: [UInt8], spanID: UInt64, sampled: Bool = true, attributes: [Attribute] = []) {
            self.traceID = traceID
            self.spanID = spanID
            self.sampled = sampled
            self.attributes = attributes
        }
    }

    /// OTLP's status codes: unset 0, ok 1, error 2.
    public struct Status: Sendable, Equatable {
        public var code: UInt8
        public var message: String?
        public init(code: UInt8, message: String? = nil) {
            self.code = code
            self.message = message
        }
    }

    public var name: String?
    public var kind: Kind?
    /// The parent given in the span's context from another process (an extracted `traceparent`).
    public var remoteParent: Remote?
    /// The parent given in the span's context from this process: its reader span id (`1 << 63 | token`).
    public var localParent: UInt64?
    public var attributes: [Attribute] = []
    public var events: [Event] = []
    public var links: [Remote] = []
    public var status: Status?

    public init() {}

    enum Tag: UInt8 {
        case name = 1
        case kind, remoteParent, localParent, attribute, event, link, status
    }

    enum ValueType: UInt8 {
        case string = 1
        case int, double, bool, strings, ints, doubles, bools
    }

    // MARK: writing

    public func encoded() -> [UInt8] {
        var out: [UInt8] = []
        if let name {
            out.append(Tag.name.rawValue)
            Self.put(name, &out)
        }
        if let kind {
            out.append(Tag.kind.rawValue)
            out.append(kind.rawValue)
        }
        if let remoteParent {
            out.append(Tag.remoteParent.rawValue)
            Self.put(remoteParent, &out)
        }
        if let localParent {
            out.append(Tag.localParent.rawValue)
            Self.put(localParent, &out)
        }
        for attribute in attributes {
            out.append(Tag.attribute.rawValue)
            Self.put(attribute, &out)
        }
        for event in events {
            out.append(Tag.event.rawValue)
            Self.put(event.name, &out)
            Self.put(event.time, &out)
            Self.put(event.attributes, &out)
        }
        for link in links {
            out.append(Tag.link.rawValue)
            Self.put(link, &out)
        }
        if let status {
            out.append(Tag.status.rawValue)
            out.append(status.code)
            Self.put(status.message ?? "", &out)
        }
        return out
    }

    static func put(_ value: UInt64, _ out: inout [UInt8]) {
        for shift in stride(from: 0, to: 64, by: 8) { out.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    static func put(_ value: UInt32, _ out: inout [UInt8]) {
        for shift in stride(from: 0, to: 32, by: 8) { out.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    static func put(_ text: String, _ out: inout [UInt8]) {
        put(UInt32(text.utf8.count), &out)
        out.append(contentsOf: text.utf8)
    }

    static func put(_ remote: Remote, _ out: inout [UInt8]) {
        out.append(contentsOf: (remote.traceID + [UInt8](repeating: 0, count: 16)).prefix(16))
        put(remote.spanID, &out)
        out.append(remote.sampled ? 1 : 0)
        put(remote.attributes, &out)
    }

    static func put(_ attributes: [Attribute], _ out: inout [UInt8]) {
        put(UInt32(attributes.count), &out)
        for attribute in attributes { put(attribute, &out) }
    }

    static func put(_ attribute: Attribute, _ out: inout [UInt8]) {
        put(attribute.key, &out)
        switch attribute.value {
        case .string(let text):
            out.append(ValueType.string.rawValue)
            put(text, &out)
        case .int(let number):
            out.append(ValueType.int.rawValue)
            put(UInt64(bitPattern: number), &out)
        case .double(let number):
            out.append(ValueType.double.rawValue)
            put(number.bitPattern, &out)
        case .bool(let flag):
            out.append(ValueType.bool.rawValue)
            out.append(flag ? 1 : 0)
        case .strings(let texts):
            out.append(ValueType.strings.rawValue)
            put(UInt32(texts.count), &out)
            for text in texts { put(text, &out) }
        case .ints(let numbers):
            out.append(ValueType.ints.rawValue)
            put(UInt32(numbers.count), &out)
            for number in numbers { put(UInt64(bitPattern: number), &out) }
        case .doubles(let numbers):
            out.append(ValueType.doubles.rawValue)
            put(UInt32(numbers.count), &out)
            for number in numbers { put(number.bitPattern, &out) }
        case .bools(let flags):
            out.append(ValueType.bools.rawValue)
            put(UInt32(flags.count), &out)
            for flag in flags { out.append(flag ? 1 : 0) }
        }
    }

    // MARK: reading

    /// Decodes `bytes`; what follows a field that does not decode (cut, or a newer tag) is left out.
    public init(decoding bytes: UnsafeRawBufferPointer) {
        var reader = Reader(bytes: bytes)
        while let raw = reader.byte() {
            guard let tag = Tag(rawValue: raw) else { return }
            switch tag {
            case .name:
                guard let text = reader.string() else { return }
                name = text
            case .kind:
                guard let kind = reader.byte().flatMap(Kind.init(rawValue:)) else { return }
                self.kind = kind
            case .remoteParent:
                guard let remote = reader.remote() else { return }
                remoteParent = remote
            case .localParent:
                guard let id = reader.uint64() else { return }
                localParent = id
            case .attribute:
                guard let attribute = reader.attribute() else { return }
                attributes.append(attribute)
            case .event:
                guard let name = reader.string(), let time = reader.uint64(), let attributes = reader.attributes()
                else { return }
                events.append(Event(name: name, time: time, attributes: attributes))
            case .link:
                guard let link = reader.remote() else { return }
                links.append(link)
            case .status:
                guard let code = reader.byte(), let message = reader.string() else { return }
                status = Status(code: code, message: message.isEmpty ? nil : message)
            }
        }
    }

    /// `later` over `self`: a start's details completed by the end's.
    public func merged(with later: SpanDetails) -> SpanDetails {
        var merged = self
        if let name = later.name { merged.name = name }
        if let kind = later.kind { merged.kind = kind }
        if let remote = later.remoteParent { merged.remoteParent = remote }
        if let local = later.localParent { merged.localParent = local }
        var keys = Set(later.attributes.map(\.key))
        merged.attributes = later.attributes + attributes.filter { keys.insert($0.key).inserted }
        merged.events += later.events
        merged.links += later.links
        if let status = later.status { merged.status = status }
        return merged
    }

    struct Reader {
        let bytes: UnsafeRawBufferPointer
        var offset = 0

        mutating func take(_ count: Int) -> UnsafeRawBufferPointer? {
            guard count >= 0, bytes.count - offset >= count else { return nil }
            defer { offset += count }
            return UnsafeRawBufferPointer(rebasing: bytes[offset ..< offset + count])
        }

        mutating func byte() -> UInt8? { take(1)?[0] }

        mutating func uint64() -> UInt64? {
            take(8).map { $0.reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) } }
        }

        mutating func uint32() -> UInt32? {
            take(4).map { $0.reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) } }
        }

        mutating func string() -> String? {
            guard let count = uint32(), let text = take(Int(count)) else { return nil }
            return String(decoding: text, as: UTF8.self)
        }

        /// A count of items, refused when the bytes left could not hold that many.
        mutating func count(atLeast size: Int) -> Int? {
            guard let count = uint32(), Int(count) * size <= bytes.count - offset else { return nil }
            return Int(count)
        }

        mutating func remote() -> Remote? {
            guard let trace = take(16), let span = uint64(), let flags = byte(), let attributes = attributes() else {
                return nil
            }
            return Remote(traceID: Array(trace), spanID: span, sampled: flags & 1 != 0, attributes: attributes)
        }

        mutating func attributes() -> [Attribute]? {
            guard let count = count(atLeast: 6) else { return nil }
            var attributes: [Attribute] = []
            for _ in 0 ..< count {
                guard let attribute = attribute() else { return nil }
                attributes.append(attribute)
            }
            return attributes
        }

        mutating func attribute() -> Attribute? {
            guard let key = string(), let type = byte().flatMap(ValueType.init(rawValue:)) else { return nil }
            let value: Value
            switch type {
            case .string:
                guard let text = string() else { return nil }
                value = .string(text)
            case .int:
                guard let number = uint64() else { return nil }
                value = .int(Int64(bitPattern: number))
            case .double:
                guard let number = uint64() else { return nil }
                value = .double(Double(bitPattern: number))
            case .bool:
                guard let flag = byte() else { return nil }
                value = .bool(flag != 0)
            case .strings:
                guard let count = count(atLeast: 4) else { return nil }
                var texts: [String] = []
                for _ in 0 ..< count {
                    guard let text = string() else { return nil }
                    texts.append(text)
                }
                value = .strings(texts)
            case .ints:
                guard let count = count(atLeast: 8) else { return nil }
                value = .ints((0 ..< count).map { _ in Int64(bitPattern: uint64()!) })
            case .doubles:
                guard let count = count(atLeast: 8) else { return nil }
                value = .doubles((0 ..< count).map { _ in Double(bitPattern: uint64()!) })
            case .bools:
                guard let count = count(atLeast: 1) else { return nil }
                value = .bools((0 ..< count).map { _ in byte()! != 0 })
            }
            return Attribute(key, value)
        }
    }
}

extension SpanDetails.Value: CustomStringConvertible {
    /// As viewers print it: strings as they are, lists in brackets.
    public var description: String {
        switch self {
        case .string(let text): text
        case .int(let number): String(number)
        case .double(let number): String(number)
        case .bool(let flag): String(flag)
        case .strings(let texts): "[" + texts.joined(separator: ", ") + "]"
        case .ints(let numbers): "[" + numbers.map(String.init).joined(separator: ", ") + "]"
        case .doubles(let numbers): "[" + numbers.map { String($0) }.joined(separator: ", ") + "]"
        case .bools(let flags): "[" + flags.map { String($0) }.joined(separator: ", ") + "]"
        }
    }
}
