/// The SoundCloud API objects the tests rely on, written from SoundCloud's published OpenAPI:
/// the public repository soundcloud/api, `openapi/api.yaml` (OpenAPI 3.0.4, "SoundCloud Public
/// API Specification", `info.version` 1.0.0), as updated on 2026-07-19 (commit abf5d57); read
/// 2026-11-24. These are the project's own test data: a stand-in answer that leaves them fails
/// its test.
///
/// How the spec's declarations are carried over:
/// - The schemas `Track`, `User`, `Me`, `Playlist` and `Streams` require no member: every
///   member here is optional, and unknown members are allowed (the schemas do not forbid them).
/// - A member may be `null` only where the spec says `nullable: true`: a track's `access` and
///   `download_url`, the user's `locale` and `upload_seconds_left`, a playlist's `tracks_uri`,
///   `tags` and `label`, and the `User` object itself (so a track's or playlist's `user`).
///   The spec's own examples show `null` for some members it does not mark nullable
///   (`description`, `website`, `secret_uri`, `bpm`, ...); the clients tolerate those nulls (the
///   unit tests feed them), but a stand-in keeps to the declared schema and leaves them out.
/// - `integer` members are checked as whole numbers, `number` ones (`bpm`) as any number;
///   `format: date-time` is not checked (SoundCloud writes `2019/01/15 15:40:49 +0000`, as the
///   examples do).
/// - The user's `subscriptions` declare `items` of `type: array` whose `anyOf` is an object,
///   while the example lists objects: taken as an array of objects.
public enum SoundCloudAPISchema {
    typealias Member = JSONObjectSchema.Member

    /// A member the schema lists without requiring it, as every member of these schemas is.
    static func field(_ name: String, _ kind: JSONObjectSchema.Kind, nullable: Bool = false) -> Member {
        Member(name, kind, required: false, nullable: nullable)
    }

    /// `components/schemas/User`: a user, as `GET /users/{user_urn}` answers and as a track's
    /// or playlist's `user` (nullable there: the schema is `nullable: true`).
    public static let user = JSONObjectSchema("User", [
        field("avatar_url", .string()), field("city", .string()), field("country", .string()),
        field("description", .string()), field("discogs_name", .string()), field("first_name", .string()),
        field("followers_count", .integer), field("followings_count", .integer), field("full_name", .string()),
        field("urn", .string()), field("kind", .string()), field("created_at", .string()),
        field("last_modified", .string()), field("last_name", .string()), field("permalink", .string()),
        field("permalink_url", .string()), field("plan", .string()), field("playlist_count", .integer),
        field("public_favorites_count", .integer), field("reposts_count", .integer), field("track_count", .integer),
        field("uri", .string()), field("username", .string()), field("website", .string()),
        field("website_title", .string()), field("subscriptions", .array(.anyObject)),
    ])

    /// The `quota` object of `Me`.
    public static let quota = JSONObjectSchema("Me.quota", [
        field("unlimited_upload_quota", .boolean), field("upload_seconds_used", .integer),
        field("upload_seconds_left", .integer, nullable: true),
    ])

    /// `components/schemas/Me`: the answer of `GET /me` (a user's token only).
    public static let me = JSONObjectSchema("Me", [
        field("avatar_url", .string()), field("city", .string()), field("comments_count", .integer),
        field("country", .string()), field("created_at", .string()), field("description", .string()),
        field("discogs_name", .string()), field("first_name", .string()), field("followers_count", .integer),
        field("followings_count", .integer), field("full_name", .string()), field("urn", .string()),
        field("kind", .string()), field("last_modified", .string()), field("last_name", .string()),
        field("likes_count", .integer), field("locale", .string(), nullable: true), field("online", .boolean),
        field("permalink", .string()), field("permalink_url", .string()), field("plan", .string()),
        field("playlist_count", .integer), field("primary_email_confirmed", .boolean),
        field("private_playlists_count", .integer), field("private_tracks_count", .integer),
        field("public_favorites_count", .integer), field("quota", .object(quota)), field("reposts_count", .integer),
        field("subscriptions", .array(.anyObject)), field("track_count", .integer),
        field("upload_seconds_left", .integer, nullable: true), field("uri", .string()), field("username", .string()),
        field("website", .string()), field("website_title", .string()),
    ])

    /// `components/schemas/Track`: the answer of `GET /tracks/{track_urn}` (and of `/resolve`
    /// for a track link, once its redirect is followed).
    public static let track = JSONObjectSchema("Track", [
        field("kind", .string()), field("title", .string()), field("artwork_url", .string()),
        field("bpm", .number), field("comment_count", .integer), field("commentable", .boolean),
        field("created_at", .string()), field("description", .string()), field("download_count", .integer),
        field("downloadable", .boolean), field("duration", .integer), field("embeddable_by", .string()),
        field("favoritings_count", .integer), field("genre", .string()), field("urn", .string()),
        field("isrc", .string()), field("key_signature", .string()), field("label_name", .string()),
        field("license", .string()), field("metadata_artist", .string()), field("permalink_url", .string()),
        field("playback_count", .integer), field("purchase_title", .string()), field("purchase_url", .string()),
        field("release", .string()), field("release_day", .integer), field("release_month", .integer),
        field("release_year", .integer), field("sharing", .string()), field("stream_url", .string()),
        field("streamable", .boolean), field("tag_list", .string()), field("uri", .string()),
        field("user", .object(user), nullable: true), field("user_favorite", .boolean),
        field("user_playback_count", .integer), field("waveform_url", .string()),
        field("available_country_codes", .string()),
        field("access", .string(oneOf: ["playable", "preview", "blocked"]), nullable: true),
        field("download_url", .string(), nullable: true), field("reposts_count", .integer),
        field("reveal_stats", .boolean), field("reveal_comments", .boolean), field("secret_uri", .string()),
    ])

    /// `components/schemas/Playlist`: the answer of `GET /playlists/{playlist_urn}`.
    public static let playlist = JSONObjectSchema("Playlist", [
        field("title", .string()), field("urn", .string()), field("kind", .string()),
        field("artwork_url", .string()), field("created_at", .string()), field("description", .string()),
        field("downloadable", .boolean), field("duration", .integer), field("ean", .string()),
        field("embeddable_by", .string()), field("genre", .string()), field("label_id", .integer),
        field("label_name", .string()), field("last_modified", .string()), field("license", .string()),
        field("permalink", .string()), field("permalink_url", .string()), field("playlist_type", .string()),
        field("purchase_title", .string()), field("purchase_url", .string()), field("release", .string()),
        field("release_day", .integer), field("release_month", .integer), field("release_year", .integer),
        field("sharing", .string()), field("streamable", .boolean), field("tag_list", .string()),
        field("track_count", .integer), field("tracks", .array(.object(track))), field("type", .string()),
        field("uri", .string()), field("user", .object(user), nullable: true), field("user_urn", .string()),
        field("likes_count", .integer), field("label", .object(user), nullable: true),
        field("tracks_uri", .string(), nullable: true), field("tags", .string(), nullable: true),
    ])

    /// `components/schemas/Streams`: the answer of `GET /tracks/{track_urn}/streams`, API URLs
    /// that redirect to the CDN (`http_mp3_128_url` is marked deprecated). Other keys (the
    /// encrypted `ctr-encrypted-hls`, `cbc-encrypted-hls`) are members the schema does not list.
    public static let streams = JSONObjectSchema("Streams", [
        field("hls_aac_160_url", .string()), field("http_mp3_128_url", .string()),
        field("hls_mp3_128_url", .string()), field("preview_mp3_128_url", .string()),
    ])

    /// `components/schemas/Found`: the body of `GET /resolve`'s 302 (and of a stream URL's).
    public static let found = JSONObjectSchema("Found", [field("status", .string()), field("location", .string())])

    /// `components/schemas/Error`: every API error's body (401, 403, 404, 422; 429 adds
    /// `spam_warning_urn`). `error`, `errors` and `status` are marked deprecated.
    public static let error = JSONObjectSchema("Error", [
        field("code", .integer), field("message", .string()), field("link", .string()),
        field("error", .string(), nullable: true),
        field("errors", .array(.object(JSONObjectSchema("Error.errors[]", [field("error_message", .string())])))),
        field("status", .string()), field("spam_warning_urn", .string()),
    ])

    /// The token endpoint's answer (`POST https://secure.soundcloud.com/oauth/token`). The
    /// OpenAPI has no schema for it, only the example `ExpiringToken` (`access_token`,
    /// `expires_in` 3599, `scope` "", `refresh_token`, `token_type` "bearer"): these are its
    /// members, `access_token` and `token_type` required as OAuth 2 (RFC 6749, section 5.1)
    /// requires them.
    public static let token = JSONObjectSchema("ExpiringToken (example)", [
        Member("access_token", .string()), Member("token_type", .string()), field("expires_in", .integer),
        field("scope", .string()), field("refresh_token", .string()),
    ])
}
