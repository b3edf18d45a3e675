/// Legacy: a social network a SoundCloud connection posts to (`twitter`, `facebook_profile`,
/// ...), from the 2012 API; today's OpenAPI no longer lists connections.
public struct SoundCloudConnectionService: RawRepresentable, Sendable, Hashable, ExpressibleByStringLiteral,
    CustomStringConvertible {
    /// The service's name as the API writes it.
    public var rawValue: String
    /// A service by name.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// A service by name, from a literal.
    public init(stringLiteral value: String) { rawValue = value }

    /// Twitter.
    public static let twitter: SoundCloudConnectionService = "twitter"
    /// A Facebook profile (connects the user's pages too).
    public static let facebookProfile: SoundCloudConnectionService = "facebook_profile"
    /// Foursquare (posts need a `foursquare:venue=` machine tag).
    public static let foursquare: SoundCloudConnectionService = "foursquare"
    /// Tumblr.
    public static let tumblr: SoundCloudConnectionService = "tumblr"
    /// Myspace.
    public static let myspace: SoundCloudConnectionService = "myspace"

    /// The name.
    public var description: String { rawValue }
}
