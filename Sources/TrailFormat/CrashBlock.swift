/// A crash (or reported error) block as the runtime writes it into a log (Docs/crash-format.md; its text in
/// `CrashBlockSyntax`), read back by `CrashLog` from text that may hold anything else around it, other
/// threads' lines inside it, or be cut short.
public struct CrashBlock: Sendable {
    public enum Kind: String, Sendable {
        case crash = "CRASH"
        case error = "ERROR"
    }

    public struct Frame: Sendable {
        public var index: Int
        public var address: UInt64
        /// A return address: the call is the instruction before it, so lookups use `address - 1`.
        public var isReturnAddress: Bool
    }

    public struct Image: Sendable {
        /// The load bias: a file address is a runtime address minus this.
        public var base: UInt64
        public var end: UInt64
        public var buildID: String?
        public var path: String
    }

    public struct Breadcrumb: Sendable {
        /// Microseconds before the crash (negative).
        public var offset: String
        /// One of `CrashBlockSyntax.breadcrumbEvents`.
        public var event: String
        public var site: String
    }

    public var kind: Kind
    public var version: Int
    /// 1-based line of the begin marker in the log.
    public var line: Int
    /// False when the log ends, or another block begins, before this block's end marker.
    public var complete = false
    /// By `CrashBlockSyntax.fieldKeys`.
    public var fields: [String: String] = [:]
    public var frames: [Frame] = []
    public var images: [Image] = []
    public var breadcrumbs: [Breadcrumb] = []
    public var openCalls: [String] = []
    /// Lines inside the block that are not part of its format (say, another thread's output), with their line.
    public var foreignLines: [(Int, String)] = []

    public init(kind: Kind, version: Int, line: Int) {
        self.kind = kind
        self.version = version
        self.line = line
    }

    public var time: String? { fields["time"] }
    public var app: String? { fields["app"] }
    public var pid: String? { fields["pid"] }
    public var executable: String? { fields["exe"] }
    public var reason: String? { fields["reason"] }
    public var trace: String? { fields["trace"] }

    /// `11 SIGSEGV code 1 SEGV_MAPERR address 0x8` split up.
    public var signal: (number: Int, name: String, code: String?, address: String?)? {
        guard let text = fields["signal"] else { return nil }
        let parts = text.split(separator: " ").map(String.init)
        guard parts.count >= 2, let number = Int(parts[0]) else { return nil }
        var code: String?
        var address: String?
        if let index = parts.firstIndex(of: CrashBlockSyntax.signalCode.description), index + 2 < parts.count {
            code = parts[index + 2]
        }
        if let index = parts.firstIndex(of: CrashBlockSyntax.signalAddress.description), index + 1 < parts.count {
            address = parts[index + 1]
        }
        return (number, parts[1], code, address)
    }

    /// `4242 worker`.
    public var thread: (tid: String, name: String)? {
        guard let text = fields["thread"] else { return nil }
        let parts = text.split(separator: " ", maxSplits: 1).map(String.init)
        return (parts.first ?? "", parts.count > 1 ? parts[1] : "")
    }

    /// Into `images`: the first image whose range holds a runtime address.
    public func imageIndex(containing address: UInt64) -> Int? {
        images.firstIndex { address >= $0.base && address < $0.end }
    }
}
