/// The process a batch of spans or log records came from: OTLP's Resource, with the semantic conventions'
/// attributes.
public struct ProcessResource: Sendable, Equatable {
    public var serviceName: String
    public var serviceVersion: String?
    public var pid: Int?
    public var executablePath: String?
    public var hostName: String?
    /// More attributes (OTEL_RESOURCE_ATTRIBUTES); the facts above win over a key given here too.
    public var extra: [Attribute] = []

    public init(
        serviceName: String, serviceVersion: String? = nil, pid: Int? = nil, executablePath: String? = nil,
        hostName: String? = nil, extra: [Attribute] = []
    ) {
        self.serviceName = serviceName
        self.serviceVersion = serviceVersion
        self.pid = pid
        self.executablePath = executablePath
        self.hostName = hostName
        self.extra = extra
    }

    /// The SDK that made the data: this tool.
    public static let sdkName = "swift-trail"
    public static let sdkVersion = "0.1.0"

    public var attributes: [Attribute] {
        var facts = [Attribute("service.name", serviceName)]
        if let serviceVersion { facts.append(Attribute("service.version", serviceVersion)) }
        if let pid { facts.append(Attribute("process.pid", pid)) }
        if let executablePath { facts.append(Attribute("process.executable.path", executablePath)) }
        if let hostName { facts.append(Attribute("host.name", hostName)) }
        facts += [
            Attribute("telemetry.sdk.name", Self.sdkName), Attribute("telemetry.sdk.language", "swift"),
            Attribute("telemetry.sdk.version", Self.sdkVersion),
        ]
        let known = Set(facts.map(\.key))
        return facts + extra.filter { !known.contains($0.key) }
    }
}
