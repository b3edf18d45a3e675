import StreamPlay

/// The URL an OpenID sign-in returned to, read and checked against its request (OpenID 2.0
/// §5.2.3, §11; Spark's `openid.spark.*` extension).
struct SparkOpenIDReturn {
    /// The positive assertion's identity and attributes.
    let assertion: SparkOpenIDResult
    /// `openid.spark.code`, for a Hybrid request; a secret, never logged.
    let code: String?

    /// Checks `returnURL` (the full URL or its query) against `request`.
    /// - Throws: ``SparkError/authorization(_:)`` with ``OAuth2Error/stateMismatch`` before
    ///   anything else is believed; ``SparkError/openIDCancelled``,
    ///   ``SparkError/openIDFailed(message:)``, or ``SparkError/invalidOpenIDResponse(reason:)``.
    init(_ returnURL: String, request: SparkOpenIDRequest) throws(SparkError) {
        let fields = AuthorizationRequest.queryFields(of: returnURL)
        func value(_ name: String) -> String? { fields.first { $0.0 == name }?.1 }
        // A forged return is refused before anything in it is used.
        guard value("openid.spark.state") == request.state else { throw .authorization(.stateMismatch) }
        switch value("openid.mode") {
        case "id_res": break
        case "cancel": throw .openIDCancelled
        case "error": throw .openIDFailed(message: value("openid.error") ?? "no openid.error given")
        case let mode?: throw .invalidOpenIDResponse(reason: "unexpected openid.mode \(mode)")
        case nil: throw .invalidOpenIDResponse(reason: "no openid.mode in the return")
        }
        // OpenID 2.0 §11.1: the assertion must be for this return URL.
        if let returnTo = value("openid.return_to"), returnTo != request.returnTo {
            throw .invalidOpenIDResponse(reason: "openid.return_to differs from the request's")
        }
        guard let identity = value("openid.identity") ?? value("openid.claimed_id"), !identity.isEmpty else {
            throw .invalidOpenIDResponse(reason: "no openid.identity in the assertion")
        }
        let code = value("openid.spark.code").flatMap { $0.isEmpty ? nil : $0 }
        if request.hybrid && code == nil {
            throw .invalidOpenIDResponse(reason: "a Hybrid sign-in returned no openid.spark.code")
        }
        self.code = request.hybrid ? code : nil
        assertion = SparkOpenIDResult(identity: identity, claimedID: value("openid.claimed_id") ?? identity,
                                      attributes: Self.attributes(in: fields), hasAPISession: false)
    }

    /// The attribute exchange values by type URI, under whatever alias the provider gave AX.
    private static func attributes(in fields: [(String, String)]) -> [String: String] {
        guard let namespace = fields.first(where: { $0.0.hasPrefix("openid.ns.") && $0.1 == SparkOpenIDRequest.attributeExchangeNamespace }) else {
            return [:]
        }
        let prefix = "openid." + namespace.0.dropFirst("openid.ns.".count) + "."
        var values: [String: String] = [:]
        for (name, typeURI) in fields where name.hasPrefix(prefix + "type.") {
            let alias = name.dropFirst((prefix + "type.").count)
            if let value = fields.first(where: { $0.0 == prefix + "value." + alias })?.1 {
                values[typeURI] = value
            }
        }
        return values
    }
}
