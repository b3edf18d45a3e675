/// Playback as the iOS SDK's `SPTAudioStreamingController` offered it (play URIs, set playing,
/// stop, position, duration, seek), over the Web API's player endpoints: these control the
/// user's Spotify Connect device (the Spotify app on a phone, computer or speaker), which does
/// the streaming itself; no audio comes to StreamPlay. They need Spotify Premium
/// (``SpotifyError/premiumRequired(message:)``) and an active device or a `deviceID`
/// (``SpotifyError/noActiveDevice(message:)``), and the scopes `user-modify-playback-state`
/// and `user-read-playback-state`.
extension SpotifyClient {
    /// The user's Spotify Connect devices.
    public func devices() async throws(SpotifyError) -> [SpotifyDevice] {
        let (json, status) = try await requestJSON(.get, "/me/player/devices")
        guard let list = json["devices"]?.array else {
            throw .invalidResponse(reason: "no devices list", status: status)
        }
        var devices: [SpotifyDevice] = []
        for item in list { devices.append(try SpotifyDevice(json: item, status: status)) }
        return devices
    }

    /// Moves playback to `deviceID` (which becomes the active device).
    /// - Parameters:
    ///   - deviceID: the device's id, from the devices list.
    ///   - play: start playing there; false keeps the current playing or paused state.
    public func transfer(to deviceID: String, play: Bool = false) async throws(SpotifyError) {
        _ = try await request(.put, "/me/player", body: ["device_ids": [.string(deviceID)], "play": .bool(play)])
    }

    /// Plays `uris` (the SDK's `playURIs`), from `offset`, at `positionMilliseconds` into that
    /// track. Track ids and open.spotify.com track links are turned into `spotify:track:` URIs.
    /// - Parameters:
    ///   - uris: the tracks (or one album, playlist or artist URI) to play.
    ///   - offset: where in `uris` to start; nil: the first.
    ///   - positionMilliseconds: where in that track to start; nil: its start.
    ///   - deviceID: the device to play on (it becomes the active one); nil: the active device.
    public func play(uris: [String], offset: SpotifyPlayOffset? = nil, positionMilliseconds: Int? = nil,
                     deviceID: String? = nil) async throws(SpotifyError) {
        var body: [String: JSON] = ["uris": .array(uris.map { .string(Self.playableURI($0)) })]
        if let offset {
            if case .uri(let uri) = offset { body["offset"] = SpotifyPlayOffset.uri(Self.playableURI(uri)).json } else { body["offset"] = offset.json }
        }
        if let positionMilliseconds { body["position_ms"] = .number(Double(positionMilliseconds)) }
        _ = try await request(.put, "/me/player/play", query: Self.deviceQuery(deviceID), body: .object(body))
    }

    /// Resumes (`true`) or pauses (`false`) playback (the SDK's `setIsPlaying`).
    public func setPlaying(_ playing: Bool, deviceID: String? = nil) async throws(SpotifyError) {
        _ = try await request(.put, playing ? "/me/player/play" : "/me/player/pause", query: Self.deviceQuery(deviceID))
    }

    /// Stops playback (pauses: the Web API has no stop). Nothing playing is not an error.
    public func stop(deviceID: String? = nil) async throws(SpotifyError) {
        do {
            try await setPlaying(false, deviceID: deviceID)
        } catch .api(403, let message, _) where message.contains("Restriction violated") {
            // Already paused, or nothing loaded: stopped is what was asked.
        }
    }

    /// Seeks to `milliseconds` into the current track (clamped to it by Spotify), keeping the
    /// playing or paused state.
    public func seek(toMilliseconds milliseconds: Int, deviceID: String? = nil) async throws(SpotifyError) {
        _ = try await request(.put, "/me/player/seek",
                              query: [("position_ms", String(max(0, milliseconds)))] + Self.deviceQuery(deviceID))
    }

    /// Seeks to `seconds` into the current track (the SDK's `seekToOffset`).
    /// - Throws: ``SpotifyError/invalidSeekPosition(seconds:)`` before any request when
    ///   `seconds` is negative, not a number, infinite, or beyond ``longestSeek``.
    public func seek(toOffset seconds: Double, deviceID: String? = nil) async throws(SpotifyError) {
        guard seconds.isFinite, seconds >= 0, seconds <= Self.longestSeek else { throw .invalidSeekPosition(seconds: seconds) }
        try await seek(toMilliseconds: Int((seconds * 1000).rounded()), deviceID: deviceID)
    }

    /// The furthest ``seek(toOffset:deviceID:)`` goes, in seconds (a year: longer than any
    /// track, well within `Int` milliseconds).
    public static let longestSeek: Double = 365 * 86400

    /// What the player is doing, or nil when no device is active (HTTP 204).
    public func playbackState() async throws(SpotifyError) -> SpotifyPlaybackState? {
        let response = try await request(.get, "/me/player")
        guard response.status != 204, !response.body.isEmpty else { return nil }
        let json: JSON
        do {
            json = try JSON(parsing: response.body)
        } catch {
            throw .invalidResponse(reason: "the playback state is not JSON", status: response.status)
        }
        return try SpotifyPlaybackState(json: json, status: response.status)
    }

    /// The position in the current track, in seconds (the SDK's `currentPlaybackPosition`);
    /// nil when nothing is loaded or no device is active.
    public var currentPosition: Double? {
        get async throws(SpotifyError) { try await playbackState()?.position }
    }

    /// The current track's length, in seconds (the SDK's `currentTrackDuration`); nil when
    /// nothing is loaded or no device is active.
    public var trackDuration: Double? {
        get async throws(SpotifyError) { try await playbackState()?.track?.duration }
    }

    private static func deviceQuery(_ deviceID: String?) -> [(String, String)] {
        deviceID.map { [("device_id", $0)] } ?? []
    }

    /// `spotify:track:ID` for a track id or link; any other URI as it is.
    private static func playableURI(_ text: String) -> String {
        if text.lowercased().hasPrefix("spotify:") { return text }
        return SpotifyTrackID(text)?.uri ?? text
    }
}
