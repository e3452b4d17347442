/// SeverityNumber of the OTel log data model.
public enum Severity: Int, Sendable {
    case unspecified = 0
    case trace = 1
    case debug = 5
    case info = 9
    case info2 = 10
    case warn = 13
    case error = 17
    case fatal = 21

    /// The logger's levels as the data model maps syslog's: notice is INFO2, critical is FATAL.
    public init?(level: String) {
        switch level {
        case "trace": self = .trace
        case "debug": self = .debug
        case "info": self = .info
        case "notice": self = .info2
        case "warning": self = .warn
        case "error": self = .error
        case "critical": self = .fatal
        default: return nil
        }
    }
}
