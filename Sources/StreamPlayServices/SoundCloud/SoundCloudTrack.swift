/// A SoundCloud track (`/tracks/ID`, `/resolve`, an upload's answer).
public struct SoundCloudTrack: Sendable, Equatable {
    /// The numeric id.
    public var id: Int
    /// The URN, `soundcloud:tracks:ID`.
    public var urn: String
    /// The title.
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
    /// - Throws: ``SoundCloudError/invalidResponse(reason:status:)`` without `id` or `title`.
    public init(json: JSON) throws(SoundCloudError) {
        guard let id = json["id"]?.int, let title = json["title"]?.string else {
            throw .invalidResponse(reason: "a track without id or title", status: 200)
        }
        self.id = id
        self.title = title
        urn = json["urn"]?.string ?? "soundcloud:tracks:\(id)"
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
