/// A track, from `GET /v1/tracks/{id}` or a player's `item`.
///
/// Spotify streams full tracks only through its own DRM player; what another player can play
/// is ``previewURL``, a plain MP3 clip of about 30 s, where Spotify still gives one (it gives
/// none to apps registered since November 2024).
public struct SpotifyTrack: Sendable, Equatable {
    /// The 22-character track id.
    public var id: String
    /// The title.
    public var name: String
    /// `spotify:track:ID`.
    public var uri: String
    /// The full track's length, in milliseconds.
    public var durationMilliseconds: Int
    /// The 30-second MP3 preview (no Authorization needed), or nil.
    public var previewURL: String?
    /// The artists' names, in credit order.
    public var artistNames: [String]
    /// The album's name.
    public var albumName: String?

    /// A track.
    public init(id: String, name: String, uri: String, durationMilliseconds: Int, previewURL: String? = nil,
                artistNames: [String] = [], albumName: String? = nil) {
        self.id = id
        self.name = name
        self.uri = uri
        self.durationMilliseconds = durationMilliseconds
        self.previewURL = previewURL
        self.artistNames = artistNames
        self.albumName = albumName
    }

    /// The full track's length, in seconds.
    public var duration: Double { Double(durationMilliseconds) / 1000 }

    /// A track object of the Web API.
    init(json: JSON, status: Int) throws(SpotifyError) {
        guard let id = json["id"]?.string, let name = json["name"]?.string,
              let duration = json["duration_ms"]?.int else {
            throw .invalidResponse(reason: "a track object without id, name or duration_ms", status: status)
        }
        self.init(id: id, name: name, uri: json["uri"]?.string ?? "spotify:track:\(id)", durationMilliseconds: duration,
                  previewURL: json["preview_url"]?.string,
                  artistNames: json["artists"]?.array?.compactMap { $0["name"]?.string } ?? [],
                  albumName: json["album"]?["name"]?.string)
    }
}
