/// A completed Spark OpenID (or Hybrid) sign-in: who the user is, the attributes Spark sent,
/// and whether an OAuth 2 session for the API came with it.
///
/// - Important: Only the Hybrid flow proves the sign-in: its code was exchanged with the
///   client's secret at Spark's grant endpoint (``hasAPISession`` is true). The plain OpenID
///   identity is NOT verified: this client makes no `check_authentication` call and checks no
///   `openid.sig`, so ``identity``, ``claimedID``, ``sparkID`` and ``attributes`` of a plain
///   OpenID return are what the browser brought back and anyone could forge them. Show them,
///   but never trust them for authorization (to decide who the user is, or what they may do).
public struct SparkOpenIDResult: Sendable, Equatable {
    /// `openid.identity`: the user's OpenID identifier at Spark.
    public let identity: String
    /// `openid.claimed_id` (the same as ``identity`` at Spark).
    public let claimedID: String
    /// The Spark user id: the last path segment of the claimed id (`.../openid/id/ID`).
    public let sparkID: String?
    /// The attribute exchange values Spark sent, by type URI.
    public let attributes: [String: String]
    /// Whether a Hybrid code was exchanged, so the API can be called from now on.
    public let hasAPISession: Bool

    /// A result; made by ``SparkClient/completeOpenID(_:returnURL:)``.
    public init(identity: String, claimedID: String, attributes: [String: String], hasAPISession: Bool) {
        self.identity = identity
        self.claimedID = claimedID
        self.attributes = attributes
        self.hasAPISession = hasAPISession
        let tail = claimedID.split(separator: "/").last.map(String.init)
        sparkID = claimedID.contains("/id/") ? tail : nil
    }

    /// The value Spark sent for `attribute`, if any.
    public func value(of attribute: SparkOpenIDAttribute) -> String? {
        attributes[attribute.typeURI]
    }
}
