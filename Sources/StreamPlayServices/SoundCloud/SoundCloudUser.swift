/// A SoundCloud user (`/me`, `/users/ID`, a track's `user`).
public struct SoundCloudUser: Sendable, Equatable {
    /// The numeric id.
    public var id: Int
    /// The URN, `soundcloud:users:ID`.
    public var urn: String
    /// The user name shown on SoundCloud (what `streamplay whoami` prints).
    public var username: String
    /// The profile's path name.
    public var permalink: String?
    /// The profile page.
    public var permalinkURL: String?
    /// The full name, if set.
    public var fullName: String?
    /// The avatar image.
    public var avatarURL: String?
    /// The city, if set.
    public var city: String?
    /// The country, if set.
    public var country: String?
    /// The profile text, if set.
    public var description: String?
    /// Followers.
    public var followersCount: Int?
    /// Public tracks.
    public var trackCount: Int?
    /// `/me` only: the subscription plan.
    public var plan: String?
    /// The object as sent, for members not modelled here.
    public var json: JSON

    /// A user read from its JSON.
    /// - Throws: ``SoundCloudError/invalidResponse(reason:status:)`` without `id` or `username`.
    public init(json: JSON) throws(SoundCloudError) {
        guard let id = json["id"]?.int, let username = json["username"]?.string else {
            throw .invalidResponse(reason: "a user without id or username", status: 200)
        }
        self.id = id
        self.username = username
        urn = json["urn"]?.string ?? "soundcloud:users:\(id)"
        permalink = json["permalink"]?.string
        permalinkURL = json["permalink_url"]?.string
        fullName = json["full_name"]?.string
        avatarURL = json["avatar_url"]?.string
        city = json["city"]?.string
        country = json["country"]?.string
        description = json["description"]?.string
        followersCount = json["followers_count"]?.int
        trackCount = json["track_count"]?.int
        plan = json["plan"]?.string
        self.json = json
    }
}
