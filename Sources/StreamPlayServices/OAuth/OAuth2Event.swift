/// What an ``OAuth2Client`` tells its observers, as the SoundCloud wrapper's delegate did.
public enum OAuth2Event: Sendable, Equatable {
    /// A session began or was renewed (sign-in, refresh, a token restored from the store).
    case authenticated
    /// The session ended: signed out, or its refresh token was refused.
    case authenticationReset
    /// Getting an access token failed.
    case failedToGetAccessToken(OAuth2Error)
}
