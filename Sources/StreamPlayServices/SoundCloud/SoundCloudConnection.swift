/// Legacy: one of the user's connections to a social network (`GET /me/connections`, from the
/// 2012 API; today's OpenAPI no longer lists it).
public struct SoundCloudConnection: Sendable, Equatable, Identifiable {
    /// The connection's id, as `SoundCloudSharingTargets.connections` takes it.
    public var id: Int
    /// The network.
    public var service: SoundCloudConnectionService
    /// The account's name on that network.
    public var displayName: String?
    /// Whether new public tracks are posted there by default (the switch's default in a UI).
    public var postPublish: Bool
    /// Whether favorites are posted there.
    public var postFavorite: Bool
    /// The connection's kind of account, if said.
    public var type: String?
    /// The connection's API URL.
    public var uri: String?
    /// When it was made (SoundCloud's `yyyy/MM/dd HH:mm:ss +0000`).
    public var createdAt: String?

    /// A connection read from its JSON.
    /// - Throws: ``SoundCloudError/invalidResponse(reason:status:)`` without `id` or `service`.
    public init(json: JSON) throws(SoundCloudError) {
        guard let id = json["id"]?.int, let service = json["service"]?.string else {
            throw .invalidResponse(reason: "a connection without id or service", status: 200)
        }
        self.id = id
        self.service = SoundCloudConnectionService(rawValue: service)
        displayName = json["display_name"]?.string
        postPublish = json["post_publish"]?.bool ?? false
        postFavorite = json["post_favorite"]?.bool ?? false
        type = json["type"]?.string
        uri = json["uri"]?.string
        createdAt = json["created_at"]?.string
    }
}
