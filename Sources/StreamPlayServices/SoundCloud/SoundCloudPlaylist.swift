/// A SoundCloud playlist or album (`/playlists/URN`, `/resolve`), read as the OpenAPI's
/// Playlist schema describes it: identified by its `urn`, every other member optional, unknown
/// members ignored (kept in ``json``), a missing or `null` member leaving its property nil.
public struct SoundCloudPlaylist: Sendable, Equatable {
    /// The deprecated numeric id, when the answer still carries one.
    public var id: Int?
    /// The URN, `soundcloud:playlists:ID`: the answer's `urn`, or built from a numeric `id`.
    public var urn: String
    /// The title; the URN when the answer has none.
    public var title: String
    /// The number of tracks, when the answer says.
    public var trackCount: Int?
    /// The tracks the answer embeds (none when it does not, or lists them without `urn`).
    public var tracks: [SoundCloudTrack]
    /// The total length in milliseconds, if known.
    public var durationMilliseconds: Int?
    /// The playlist's page.
    public var permalinkURL: String?
    /// The owner, when the answer embeds the user.
    public var user: SoundCloudUser?
    /// The object as sent, for members not modelled here.
    public var json: JSON

    /// A playlist read from its JSON.
    /// - Throws: ``SoundCloudError/invalidResponse(reason:status:)`` for something that is not
    ///   an object, or a playlist with neither a `urn` nor a numeric `id`.
    public init(json: JSON) throws(SoundCloudError) {
        guard json.object != nil else { throw .invalidResponse(reason: "a playlist that is not a JSON object", status: 200) }
        id = json["id"]?.int
        guard let urn = SoundCloudURN.identifier(of: json, kind: "playlists") else {
            throw .invalidResponse(reason: "a playlist without urn (or numeric id)", status: 200)
        }
        self.urn = urn
        title = json["title"]?.string ?? urn
        trackCount = json["track_count"]?.int
        tracks = (json["tracks"]?.array ?? []).compactMap { try? SoundCloudTrack(json: $0) }
        durationMilliseconds = json["duration"]?.int
        permalinkURL = json["permalink_url"]?.string
        user = json["user"].flatMap { try? SoundCloudUser(json: $0) }
        self.json = json
    }
}
