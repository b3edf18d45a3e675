import StreamPlay

/// An OpenID provider's discovery document (OpenID Connect Discovery 1.0 §3), as Spark serves
/// it at `https://sparkplatform.com/.well-known/openid-configuration`: where to authorize,
/// exchange codes, fetch the signing keys and revoke tokens.
public struct OpenIDProviderMetadata: Sendable, Equatable {
    /// `issuer`: what ID tokens' `iss` must be.
    public let issuer: String
    /// `authorization_endpoint` (Spark: `/openid/authorize`).
    public let authorizationEndpoint: String
    /// `token_endpoint` (Spark: `/openid/token`): code exchange and refresh.
    public let tokenEndpoint: String
    /// `jwks_uri`: the provider's signing keys.
    public let jwksURI: String
    /// `revocation_endpoint` (RFC 7009), where a sign-out deletes the session's tokens.
    public let revocationEndpoint: String?
    /// `userinfo_endpoint`, if any.
    public let userinfoEndpoint: String?
    /// `end_session_endpoint` (RP-initiated logout), if any.
    public let endSessionEndpoint: String?
    /// `scopes_supported`.
    public let scopesSupported: [String]
    /// The whole document.
    public let json: JSON

    /// Reads a discovery document fetched from `discoveryURL`.
    /// - Throws: ``SparkError/discovery(reason:)`` when a required member is missing, the
    ///   issuer is not the one the document was fetched for (§4.3), RS256 is not among the ID
    ///   token algorithms, or `code` not among the response types.
    public init(json: JSON, discoveryURL: String) throws(SparkError) {
        func url(_ name: String) throws(SparkError) -> String {
            guard let value = json[name]?.string, URLOrigin(value) != nil else {
                throw .discovery(reason: "no valid \(name) in the discovery document")
            }
            return value
        }
        issuer = try url("issuer")
        // §4.3: the issuer is the URL the document was found under, less the well-known path.
        let expected = ServiceConfiguration.trimmingTrailingSlash(issuer) + "/.well-known/openid-configuration"
        guard expected == discoveryURL else {
            throw .discovery(reason: "the issuer \(issuer) is not the one \(RedactedURL.describe(discoveryURL)) is for")
        }
        authorizationEndpoint = try url("authorization_endpoint")
        tokenEndpoint = try url("token_endpoint")
        jwksURI = try url("jwks_uri")
        revocationEndpoint = json["revocation_endpoint"]?.string
        userinfoEndpoint = json["userinfo_endpoint"]?.string
        endSessionEndpoint = json["end_session_endpoint"]?.string
        scopesSupported = json["scopes_supported"]?.array?.compactMap(\.string) ?? []
        let algorithms = json["id_token_signing_alg_values_supported"]?.array?.compactMap(\.string) ?? []
        guard algorithms.contains("RS256") else { throw .discovery(reason: "the provider does not sign ID tokens with RS256") }
        let responseTypes = json["response_types_supported"]?.array?.compactMap(\.string) ?? []
        guard responseTypes.contains("code") else { throw .discovery(reason: "the provider has no authorization code flow") }
        self.json = json
    }
}
