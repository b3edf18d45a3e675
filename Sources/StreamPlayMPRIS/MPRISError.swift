/// Why an ``MPRISService`` could not publish its player.
public struct MPRISError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, in a few words.
    public enum Code: Sendable, Equatable {
        /// No session bus could be reached (none running, or `DBUS_SESSION_BUS_ADDRESS` unusable).
        case noSessionBus
        /// The bus name, and the name with an instance suffix, are both owned by others.
        case nameTaken
        /// The name given is not a valid element of a D-Bus name.
        case invalidName
        /// The bus refused the MPRIS object or the name for another reason.
        case busFailure
    }

    /// What went wrong.
    public let code: Code
    /// The detail: the bus library's message, or the name refused.
    public let detail: String

    /// Creates an error.
    public init(_ code: Code, _ detail: String) {
        self.code = code
        self.detail = detail
    }

    /// A sentence for a log or a `--verbose` line.
    public var description: String {
        switch code {
        case .noSessionBus: "no D-Bus session bus (\(detail))"
        case .nameTaken: "the bus name is taken (\(detail))"
        case .invalidName: "not a valid bus name element: \(detail)"
        case .busFailure: "the session bus refused MPRIS (\(detail))"
        }
    }
}
