/// A SoundCloud user (`/me`, `/users/URN`, a track's `user`), read as the OpenAPI's User
/// schema describes it: every member is optional, the user is identified by its `urn`, unknown
/// members are ignored (kept in ``json``) and a missing or `null` member leaves its property nil.
public struct SoundCloudUser: Sendable, Equatable {
    /// The deprecated numeric id, when the answer still carries one (today's schema lists
    /// only ``urn``).
    public var id: Int?
    /// The URN, `soundcloud:users:ID`: the answer's `urn`, or built from a numeric `id` when an
    /// older answer has no `urn`.
    public var urn: String
    /// The user name shown on SoundCloud (what `streamplay whoami` prints); the `permalink`,
    /// else the URN, when the answer has none.
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
    /// - Throws: ``SoundCloudError/invalidResponse(reason:status:)`` for something that is not
    ///   an object, or a user with neither a `urn` nor a numeric `id`.
    public init(json: JSON) throws(SoundCloudError) {
        guard json.object != nil else { throw .invalidResponse(reason: "a user that is not a JSON object", status: 200) }
        id = json["id"]?.int
        guard let urn = SoundCloudURN.identifier(of: json, kind: "users") else {
            throw .invalidResponse(reason: "a user without urn (or numeric id)", status: 200)
        }
        self.urn = urn
        permalink = json["permalink"]?.string
        username = json["username"]?.string ?? permalink ?? urn
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
