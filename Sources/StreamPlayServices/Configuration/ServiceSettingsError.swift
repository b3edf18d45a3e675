/// Why the service settings could not be read. Never carries a secret.
public enum ServiceSettingsError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The config file could not be read.
    case unreadable(path: String, reason: String)
    /// The config file is not the JSON object described in ``ServiceSettings``.
    case invalid(path: String, reason: String)
    /// The config file holds a client secret but others may read it (mode shown in octal).
    case insecurePermissions(path: String, mode: UInt32)
    /// A service has no client id: register an app and configure it.
    case notConfigured(StreamingService)

    /// A one-line description.
    public var description: String {
        switch self {
        case .unreadable(let path, let reason): "cannot read the config file \(path): \(reason)"
        case .invalid(let path, let reason): "invalid config file \(path): \(reason)"
        case .insecurePermissions(let path, let mode):
            "the config file \(path) holds a client secret but is readable by others (mode \(String(mode, radix: 8))); chmod 600 it"
        case .notConfigured(let service):
            "no client id for \(service): set \(service.environmentPrefix)CLIENT_ID or \"client_id\" under \"\(service)\" in the config file"
        }
    }
}
