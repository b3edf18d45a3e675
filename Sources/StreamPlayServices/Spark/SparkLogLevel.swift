import Logging

/// How much a ``SparkClient`` logs, as SparkiOS's `logLevel` had it; each level maps onto a
/// swift-log level of the client's logger.
public enum SparkLogLevel: String, Sendable, CaseIterable, CustomStringConvertible {
    /// Nothing (the logger is set to `critical`, a level this client never logs at).
    case none
    /// Failed calls only.
    case error
    /// Failures and retries.
    case warning
    /// Every API call (SparkiOS's default).
    case info
    /// Every call with its details: status, pagination, session renewal.
    case debug

    /// The swift-log level this maps to.
    public var loggerLevel: Logger.Level {
        switch self {
        case .none: .critical
        case .error: .error
        case .warning: .warning
        case .info: .info
        case .debug: .debug
        }
    }

    /// The Spark level a swift-log level corresponds to (`trace` counts as debug, `notice` as
    /// info, `critical` as none).
    public init(_ level: Logger.Level) {
        switch level {
        case .trace, .debug: self = .debug
        case .info, .notice: self = .info
        case .warning: self = .warning
        case .error: self = .error
        case .critical: self = .none
        }
    }

    /// The level's name.
    public var description: String { rawValue }
}
