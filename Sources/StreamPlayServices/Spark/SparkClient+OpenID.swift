import Logging

extension SparkClient {
    /// An OpenID sign-in request at Spark's OpenID endpoint (``ServiceConfiguration/openIDURL``).
    /// - Parameters:
    ///   - hybrid: also ask for an OAuth 2 code (Spark's Hybrid flow), so the API can be called
    ///     after sign-in and the sign-in is proven; false for plain OpenID (identity and
    ///     attributes only, unverified: not for authorization).
    ///   - attributes: the attribute exchange attributes to ask for (none: no AX).
    ///   - returnTo: where Spark sends the browser back (a loopback listener's URI); a Hybrid
    ///     code is exchanged with exactly this redirect URI.
    public nonisolated func makeOpenIDRequest(hybrid: Bool = true,
                                              attributes: [SparkOpenIDAttribute] = SparkOpenIDAttribute.defaults,
                                              returnTo: String) -> SparkOpenIDRequest {
        let openIDURL = configuration.openIDURL ?? ServiceConfiguration.defaults(for: .spark).openIDURL ?? ""
        return SparkOpenIDRequest(openIDURL: openIDURL, clientID: configuration.clientID, returnTo: returnTo,
                                  hybrid: hybrid, attributes: attributes)
    }

    /// Reads the URL Spark returned to (state checked first), and for a Hybrid request
    /// exchanges its `openid.spark.code` at the grant endpoint.
    ///
    /// - Important: Only the Hybrid flow's code exchange proves the sign-in. A plain OpenID
    ///   return is not verified (no `check_authentication`, no `openid.sig` check): its
    ///   identity and attributes are unproven, for display only, and must not be trusted for
    ///   authorization. See ``SparkOpenIDResult``.
    /// - Parameters:
    ///   - request: the OpenID request the browser was sent with.
    ///   - returnURL: the full URL the browser was sent back to, or its query.
    /// - Throws: ``SparkError/authorization(_:)`` (state mismatch, refused grant),
    ///   ``SparkError/openIDCancelled``, ``SparkError/openIDFailed(message:)``,
    ///   ``SparkError/invalidOpenIDResponse(reason:)``, or a Spark error envelope.
    public func completeOpenID(_ request: SparkOpenIDRequest, returnURL: String) async throws(SparkError) -> SparkOpenIDResult {
        let answer: SparkOpenIDReturn
        do {
            answer = try SparkOpenIDReturn(returnURL, request: request)
        } catch {
            logger.warning("Spark OpenID sign-in failed", metadata: ["error": "\(error)"])
            throw error
        }
        if let code = answer.code {
            try await exchange(code: code, redirectURI: request.returnTo)
        }
        let assertion = answer.assertion
        openIDIdentity = assertion.identity
        if answer.code != nil {
            // Kept with the session, so that a later run knows who signed in.
            await oauth.updateToken { $0.openIDIdentity = assertion.identity }
        }
        logger.info("Spark OpenID sign-in", metadata: ["hybrid": "\(request.hybrid)", "spark_id": "\(assertion.sparkID ?? "?")",
                                                       "attributes": "\(assertion.attributes.count)"])
        return SparkOpenIDResult(identity: assertion.identity, claimedID: assertion.claimedID,
                                 attributes: assertion.attributes, hasAPISession: answer.code != nil)
    }
}
