/// The Spotify Web API objects the tests rely on, written from Spotify's Web API reference
/// (developer.spotify.com/documentation/web-api/reference: Get Track, Get Current User's
/// Profile, Get Playback State, Get Available Devices, Search for Item) and the "February 2026 Web API Dev Mode
/// Changes" migration guide; read 2026-11-23. These are the project's own test data: a stand-in
/// answer that leaves them fails its test.
///
/// Members the reference lists but development-mode apps no longer get (the user's `country`,
/// `email`, `explicit_content`, `followers`, `product`; a track's `available_markets`,
/// `external_ids`, `popularity`) are optional here, so that both shapes pass. `preview_url` is
/// nullable (null for most tracks, and for every track for apps registered since 2024-11-27).
public enum SpotifyWebAPISchema {
    typealias Member = JSONObjectSchema.Member

    /// SimplifiedArtistObject.
    public static let simplifiedArtist = JSONObjectSchema("SimplifiedArtistObject", [
        Member("external_urls", .anyObject), Member("href", .string()), Member("id", .string()),
        Member("name", .string()), Member("type", .string(oneOf: ["artist"])), Member("uri", .string()),
    ])

    /// SimplifiedAlbumObject, as a track's `album`.
    public static let album = JSONObjectSchema("SimplifiedAlbumObject", [
        Member("album_type", .string(oneOf: ["album", "single", "compilation"])), Member("total_tracks", .integer),
        Member("available_markets", .array(.string()), required: false), Member("external_urls", .anyObject),
        Member("href", .string()), Member("id", .string()), Member("images", .array(.anyObject)), Member("name", .string()),
        Member("release_date", .string()), Member("release_date_precision", .string(oneOf: ["year", "month", "day"])),
        Member("type", .string(oneOf: ["album"])), Member("uri", .string()), Member("artists", .array(.object(simplifiedArtist))),
    ])

    /// TrackObject (`GET /tracks/{id}`, a player's `item`).
    public static let track = JSONObjectSchema("TrackObject", [
        Member("album", .object(album)), Member("artists", .array(.object(simplifiedArtist))),
        Member("available_markets", .array(.string()), required: false), Member("disc_number", .integer),
        Member("duration_ms", .integer), Member("explicit", .boolean), Member("external_ids", .anyObject, required: false),
        Member("external_urls", .anyObject), Member("href", .string()), Member("id", .string()),
        Member("is_playable", .boolean, required: false), Member("linked_from", .anyObject, required: false),
        Member("restrictions", .anyObject, required: false), Member("name", .string()),
        Member("popularity", .integer, required: false), Member("preview_url", .string(), nullable: true),
        Member("track_number", .integer), Member("type", .string(oneOf: ["track"])), Member("uri", .string()),
        Member("is_local", .boolean),
    ])

    /// PrivateUserObject (`GET /me`).
    public static let user = JSONObjectSchema("PrivateUserObject", [
        Member("country", .string(), required: false), Member("display_name", .string(), nullable: true),
        Member("email", .string(), required: false), Member("explicit_content", .anyObject, required: false),
        Member("external_urls", .anyObject), Member("followers", .anyObject, required: false), Member("href", .string()),
        Member("id", .string()), Member("images", .array(.anyObject)), Member("product", .string(), required: false),
        Member("type", .string(oneOf: ["user"])), Member("uri", .string()),
    ])

    /// PagingObject of TrackObjects: a search answer's `tracks` (Search for Item).
    public static let trackPage = JSONObjectSchema("PagingObject", [
        Member("href", .string()), Member("items", .array(.object(track))), Member("limit", .integer),
        Member("next", .string(), nullable: true), Member("offset", .integer), Member("previous", .string(), nullable: true),
        Member("total", .integer),
    ])

    /// The answer of `GET /search?type=track`: one paging object (other types would add theirs).
    public static let trackSearch = JSONObjectSchema("SearchResponse", [Member("tracks", .object(trackPage))])

    /// DeviceObject.
    public static let device = JSONObjectSchema("DeviceObject", [
        Member("id", .string(), nullable: true), Member("is_active", .boolean), Member("is_private_session", .boolean),
        Member("is_restricted", .boolean), Member("name", .string()), Member("type", .string()),
        Member("volume_percent", .integer, nullable: true), Member("supports_volume", .boolean),
    ])

    /// The answer of `GET /me/player/devices`.
    public static let devices = JSONObjectSchema("Devices", [Member("devices", .array(.object(device)))])

    /// The answer of `GET /me/player` (the playback state; 204 without an active device).
    public static let playbackState = JSONObjectSchema("CurrentlyPlayingContextObject", [
        Member("device", .object(device)), Member("repeat_state", .string(oneOf: ["off", "track", "context"])),
        Member("shuffle_state", .boolean), Member("context", .anyObject, nullable: true), Member("timestamp", .integer),
        Member("progress_ms", .integer, nullable: true), Member("is_playing", .boolean),
        Member("item", .object(track), nullable: true),
        Member("currently_playing_type", .string(oneOf: ["track", "episode", "ad", "unknown"])),
        Member("actions", .anyObject),
    ])
}
