/// A SoundCloud track (`/tracks/URN`, `/resolve`, an upload's answer), read as the OpenAPI's
/// Track schema describes it: every member is optional there, and the track is identified by
/// its `urn`. Members this type does not model are ignored (kept in ``json``); a member that is
/// missing or `null` leaves its property nil (or at its default).
public struct SoundCloudTrack: Sendable, Equatable {
    /// The deprecated numeric id, when the answer still carries one (today's schema lists
    /// only ``urn``).
    public var id: Int?
    /// The URN, `soundcloud:tracks:ID`: the answer's `urn`, or built from a numeric `id` when an
    /// older answer has no `urn`.
    public var urn: String
    /// The title; the URN when the answer has none (the schema does not require one).
    public var title: String
    /// The length in milliseconds, if known.
    public var durationMilliseconds: Int?
    /// What may be streamed: `playable` (the whole track), `preview` (a clip), `blocked`.
    public var access: String?
    /// The track's page.
    public var permalinkURL: String?
    /// The path name of the track's page.
    public var permalink: String?
    /// Whether the track can be streamed at all.
    public var streamable: Bool
    /// Whether the owner allows downloads.
    public var downloadable: Bool
    /// `public` or `private`.
    public var sharing: String?
    /// Tags as SoundCloud joins them (space-separated, tags with spaces quoted).
    public var tagList: String?
    /// The genre, if set.
    public var genre: String?
    /// The description, if set.
    public var description: String?
    /// `processing` right after an upload, `finished` once playable.
    public var state: String?
    /// The uploader, when the answer embeds the user.
    public var user: SoundCloudUser?
    /// The object as sent, for members not modelled here.
    public var json: JSON

    /// The length in seconds, if known.
    public var duration: Double? { durationMilliseconds.map { Double($0) / 1000 } }
    /// The uploader's user name, if the answer embeds the user.
    public var username: String? { user?.username }
    /// Whether only a preview may be streamed.
    public var isPreviewOnly: Bool { access == "preview" }

    /// A track read from its JSON.
    /// - Throws: ``SoundCloudError/invalidResponse(reason:status:)`` for something that is not
    ///   an object, or a track with neither a `urn` nor a numeric `id` (nothing to address it by).
    public init(json: JSON) throws(SoundCloudError) {
        guard json.object != nil else { throw .invalidResponse(reason: "a track that is not a JSON object", status: 200) }
        id = json["id"]?.int
        guard let urn = SoundCloudURN.identifier(of: json, kind: "tracks") else {
            throw .invalidResponse(reason: "a track without urn (or numeric id)", status: 200)
        }
        self.urn = urn
        title = json["title"]?.string ?? urn
        durationMilliseconds = json["duration"]?.int
        access = json["access"]?.string
        permalinkURL = json["permalink_url"]?.string
        permalink = json["permalink"]?.string
        streamable = json["streamable"]?.bool ?? true
        downloadable = json["downloadable"]?.bool ?? false
        sharing = json["sharing"]?.string
        tagList = json["tag_list"]?.string
        genre = json["genre"]?.string
        description = json["description"]?.string
        state = json["state"]?.string
        user = json["user"].flatMap { try? SoundCloudUser(json: $0) }
        self.json = json
    }
}
