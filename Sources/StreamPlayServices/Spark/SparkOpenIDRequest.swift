import StreamPlay

/// One OpenID (or Hybrid: OpenID plus an OAuth 2 code) sign-in at Spark: the URL for the
/// browser, and what the client keeps to check the return.
///
/// Make one with ``SparkClient/makeOpenIDRequest(hybrid:attributes:returnTo:)`` and pass the
/// URL the browser was sent back to to ``SparkClient/completeOpenID(_:returnURL:)``.
///
/// Its description, debug description and mirror leave out ``state`` and the URL's query (which
/// carries it): the state is what ties the return to this sign-in.
public struct SparkOpenIDRequest: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// OpenID 2.0's namespace.
    static let openIDNamespace = "http://specs.openid.net/auth/2.0"
    /// Attribute exchange 1.0's namespace.
    static let attributeExchangeNamespace = "http://openid.net/srv/ax/1.0"

    /// Where to send the user.
    public let url: String
    /// The random `openid.spark.state` sent; the return must bring it back unchanged. A secret
    /// of this sign-in: do not log it.
    public let state: String
    /// The `openid.return_to` sent; a Hybrid code is exchanged with exactly this redirect URI.
    public let returnTo: String
    /// Whether an OAuth 2 code was asked for (`openid.spark.combined_flow=true`).
    public let hybrid: Bool
    /// The attributes asked for.
    public let attributes: [SparkOpenIDAttribute]

    /// A request to `openIDURL` for `clientID`, with a fresh state unless given.
    public init(openIDURL: String, clientID: String, returnTo: String, hybrid: Bool = true,
                attributes: [SparkOpenIDAttribute] = SparkOpenIDAttribute.defaults, state: String? = nil) {
        self.state = state ?? Base64URL.encode(RandomBytes.make(16))
        self.returnTo = returnTo
        self.hybrid = hybrid
        self.attributes = attributes
        var parameters: [(String, String)] = [
            ("openid.ns", Self.openIDNamespace),
            ("openid.mode", "checkid_setup"),
            ("openid.return_to", returnTo),
            ("openid.spark.client_id", clientID),
            ("openid.spark.combined_flow", hybrid ? "true" : "false"),
            ("openid.spark.state", self.state),
        ]
        if !attributes.isEmpty {
            parameters += [("openid.ns.ax", Self.attributeExchangeNamespace), ("openid.ax.mode", "fetch_request")]
            parameters += attributes.map { ("openid.ax.type.\($0.alias)", $0.typeURI) }
            let required = attributes.filter(\.isRequired).map(\.alias)
            let optional = attributes.filter { !$0.isRequired }.map(\.alias)
            if !required.isEmpty { parameters.append(("openid.ax.required", required.joined(separator: ","))) }
            if !optional.isEmpty { parameters.append(("openid.ax.if_available", optional.joined(separator: ","))) }
        }
        let separator = openIDURL.contains("?") ? "&" : "?"
        url = openIDURL + separator + FormEncoding.encode(parameters)
    }

    /// `SparkOpenIDRequest(Hybrid|OpenID, OpenID URL without its query, return to, attributes)`;
    /// no state.
    public var description: String {
        "SparkOpenIDRequest(\(hybrid ? "Hybrid" : "OpenID"), \(RedactedURL.describe(url)), "
            + "return to \(RedactedURL.describe(returnTo)), attributes \(attributes.map(\.alias).joined(separator: ","))"
            + ")"
    }

    /// The same as ``description``: no state.
    public var debugDescription: String { description }

    /// Everything but the state, URLs without their queries, so `dump` shows no secret.
    public var customMirror: Mirror {
        Mirror(self, children: ["url": RedactedURL.describe(url), "returnTo": RedactedURL.describe(returnTo),
                                "hybrid": hybrid, "attributes": attributes.map(\.alias)],
               displayStyle: .struct)
    }
}
