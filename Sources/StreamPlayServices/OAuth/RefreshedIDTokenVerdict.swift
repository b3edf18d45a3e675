/// What becomes of an OpenID Connect ID token that came with a refresh, as an
/// ``OAuth2Client/RefreshedIDTokenCheck`` decides.
public enum RefreshedIDTokenVerdict: Sendable, Equatable {
    /// It was verified: the refreshed session keeps it in place of the sign-in's.
    case keep
    /// It could not be checked now (the provider's keys were out of reach): it is dropped, and
    /// the refreshed session keeps the sign-in's, as when a refresh brings none.
    case drop
    /// It failed a check: the refreshed tokens are not kept and the session ends
    /// (``OAuth2Error/idTokenRefused(_:)``).
    case refuse(IDTokenError)
}
