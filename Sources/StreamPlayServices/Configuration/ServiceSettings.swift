import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Every service's ``ServiceConfiguration``: the public defaults, overlaid by the config file,
/// overlaid by the environment, so that one binary can be pointed at test servers.
///
/// The config file (`$STREAMPLAY_CONFIG`, else `$XDG_CONFIG_HOME/streamplay/config.json`, else
/// `~/.config/streamplay/config.json`) is a JSON object with one object per service:
///
/// ```json
/// {"soundcloud": {"client_id": "...", "client_secret": "...", "redirect_uri": "...",
///                 "auth_url": "...", "token_url": "...", "api_url": "...", "scopes": ["..."]},
///  "spotify": {"client_id": "...", "swap_url": "...", "refresh_url": "..."},
///  "spark": {"client_id": "...", "client_secret": "...", "openid_url": "...",
///            "discovery_url": "...", "user_agent": "MyApp/1.0"}}
/// ```
///
/// The environment variables `STREAMPLAY_<SERVICE>_CLIENT_ID`, `_CLIENT_SECRET`, `_AUTH_URL`,
/// `_TOKEN_URL`, `_API_URL`, `_REDIRECT_URI`, `_SCOPES` (space-separated), `_OPENID_URL`,
/// `_SWAP_FORWARDS_CODE_VERIFIER` (`true`/`false`), `_DISCOVERY_URL`, `_USER_AGENT` (Spark's
/// `X-SparkApi-User-Agent`), `_SWAP_URL` and `_REFRESH_URL` win over the file. A file holding a client secret must be
/// readable by its owner only, as ssh has it for keys.
public struct ServiceSettings: Sendable {
    /// The configuration of each service.
    public private(set) var configurations: [StreamingService: ServiceConfiguration]

    /// Settings with every service at its defaults.
    public init() {
        var configurations: [StreamingService: ServiceConfiguration] = [:]
        for service in StreamingService.allCases { configurations[service] = .defaults(for: service) }
        self.configurations = configurations
    }

    /// The settings from the config file and the environment.
    /// - Parameters:
    ///   - environment: the variables to read (the process's by default).
    ///   - configFile: the file to read; nil: ``defaultConfigFilePath(environment:)``. A
    ///     missing file is no error; an unreadable or invalid one is.
    public static func load(environment: [String: String] = ProcessInfo.processInfo.environment,
                            configFile: String? = nil) throws(ServiceSettingsError) -> ServiceSettings {
        var settings = ServiceSettings()
        let path = configFile ?? defaultConfigFilePath(environment: environment)
        if let file = try readConfigFile(path) {
            for (name, values) in file {
                guard let service = StreamingService(rawValue: name) else {
                    throw .invalid(path: path, reason: "unknown service \"\(name)\" (soundcloud, spotify or spark)")
                }
                guard case .object(let values) = values else {
                    throw .invalid(path: path, reason: "\"\(name)\" must be an object")
                }
                for (key, value) in values {
                    try settings.apply(key: key, value: value, to: service, path: path)
                }
            }
        }
        for service in StreamingService.allCases {
            for field in Field.allCases {
                guard let value = environment[service.environmentPrefix + field.environmentSuffix], !value.isEmpty else { continue }
                settings.configurations[service]?.set(field, value.split(separator: " ").map(String.init), text: value)
            }
        }
        return settings
    }

    /// `$STREAMPLAY_CONFIG`, else `$XDG_CONFIG_HOME/streamplay/config.json`, else
    /// `$HOME/.config/streamplay/config.json`.
    public static func defaultConfigFilePath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let explicit = environment["STREAMPLAY_CONFIG"], !explicit.isEmpty { return explicit }
        if let xdg = environment["XDG_CONFIG_HOME"], xdg.hasPrefix("/") { return "\(xdg)/streamplay/config.json" }
        return "\(environment["HOME"] ?? ".")/.config/streamplay/config.json"
    }

    /// The configuration of `service`.
    public subscript(service: StreamingService) -> ServiceConfiguration {
        get { configurations[service] ?? .defaults(for: service) }
        set { configurations[service] = newValue }
    }

    /// The configuration of `service`, which must have a client id.
    /// - Throws: ``ServiceSettingsError/notConfigured(_:)``.
    public func requireConfigured(_ service: StreamingService) throws(ServiceSettingsError) -> ServiceConfiguration {
        let configuration = self[service]
        guard !configuration.clientID.isEmpty else { throw .notConfigured(service) }
        return configuration
    }

    // MARK: Reading

    /// The settable fields, with their config-file keys and environment suffixes.
    enum Field: String, CaseIterable {
        case clientID = "client_id", clientSecret = "client_secret", authorizationURL = "auth_url"
        case tokenURL = "token_url", apiURL = "api_url", redirectURI = "redirect_uri", scopes
        case openIDURL = "openid_url", tokenSwapURL = "swap_url", tokenRefreshURL = "refresh_url"
        case tokenSwapForwardsCodeVerifier = "swap_forwards_code_verifier"
        case discoveryURL = "discovery_url", userAgent = "user_agent"

        var environmentSuffix: String { rawValue.uppercased() }
    }

    private mutating func apply(key: String, value: JSON, to service: StreamingService, path: String) throws(ServiceSettingsError) {
        guard let field = Field(rawValue: key) else {
            let known = Field.allCases.map(\.rawValue).joined(separator: ", ")
            throw .invalid(path: path, reason: "unknown key \"\(key)\" under \"\(service)\" (known: \(known))")
        }
        switch (field, value) {
        case (.scopes, .array(let items)):
            let scopes = items.compactMap(\.string)
            guard scopes.count == items.count else { throw .invalid(path: path, reason: "\(service).scopes must be strings") }
            configurations[service]?.set(field, scopes, text: scopes.joined(separator: " "))
        case (.tokenSwapForwardsCodeVerifier, .bool(let flag)):
            configurations[service]?.tokenSwapForwardsCodeVerifier = flag
        case (.tokenSwapForwardsCodeVerifier, .string(let text)):
            guard let flag = Bool(text) else { throw .invalid(path: path, reason: "\(service).\(key) must be true or false") }
            configurations[service]?.tokenSwapForwardsCodeVerifier = flag
        case (_, .string(let text)):
            configurations[service]?.set(field, text.split(separator: " ").map(String.init), text: text)
        default:
            throw .invalid(path: path, reason: "\(service).\(key) must be \(field == .scopes ? "a list of strings" : "a string")")
        }
    }

    private static func readConfigFile(_ path: String) throws(ServiceSettingsError) -> [String: JSON]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        if descriptor < 0 {
            if errno == ENOENT { return nil }
            throw .unreadable(path: path, reason: String(cString: strerror(errno)))
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw .unreadable(path: path, reason: String(cString: strerror(errno))) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .unreadable(path: path, reason: String(cString: strerror(errno)))
            }
            if count == 0 { break }
            bytes += buffer[..<count]
            guard bytes.count < 1 << 20 else { throw .invalid(path: path, reason: "larger than 1 MiB") }
        }
        let json: JSON
        do {
            json = try JSON(parsing: bytes)
        } catch {
            throw .invalid(path: path, reason: "not JSON")
        }
        guard case .object(let object) = json else { throw .invalid(path: path, reason: "the top level must be an object") }
        let holdsSecret = object.values.contains { $0["client_secret"] != nil }
        if holdsSecret, status.st_mode & 0o077 != 0 {
            throw .insecurePermissions(path: path, mode: status.st_mode & 0o777)
        }
        return object
    }
}

extension ServiceConfiguration {
    mutating func set(_ field: ServiceSettings.Field, _ words: [String], text: String) {
        switch field {
        case .clientID: clientID = text
        case .clientSecret: clientSecret = text
        case .authorizationURL: authorizationURL = text
        case .tokenURL: tokenURL = text
        case .apiURL: apiURL = Self.trimmingTrailingSlash(text)
        case .redirectURI: redirectURI = text
        case .scopes: scopes = words
        case .openIDURL: openIDURL = text
        case .tokenSwapURL: tokenSwapURL = text
        case .tokenRefreshURL: tokenRefreshURL = text
        case .tokenSwapForwardsCodeVerifier: tokenSwapForwardsCodeVerifier = text == "true"
        case .discoveryURL: discoveryURL = text
        case .userAgent: userAgent = text
        }
    }
}
