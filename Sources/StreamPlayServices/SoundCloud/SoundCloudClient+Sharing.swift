import StreamPlay

extension SoundCloudClient {
    /// Uploads a track (`POST /tracks`, multipart) and returns it as created (its `state` is
    /// `processing` at first). Needs a user's token.
    /// - Parameter progress: called with (bytes sent, bytes to send) while the file goes out.
    /// - Throws: ``SoundCloudError/api(_:)`` with status 422 and the problems by field when
    ///   SoundCloud refuses the fields; ``SoundCloudError/invalidRequest(reason:)`` for sharing
    ///   that cannot work (see ``SoundCloudUpload/multipartForm()``).
    public func upload(_ upload: SoundCloudUpload,
                       progress: (@Sendable (Int64, Int64) -> Void)? = nil) async throws(SoundCloudError) -> SoundCloudTrack {
        let form = try upload.multipartForm()
        let response = try await perform(.post, "/tracks", body: .multipart(form), uploadProgress: progress)
        let track = try SoundCloudTrack(json: response.json)
        logger.info("track uploaded", metadata: ["track": "\(track.urn)", "sharing": "\(upload.sharing.rawValue)"])
        return track
    }

    /// The user's connections to social networks (`GET /me/connections`).
    public func connections() async throws(SoundCloudError) -> [SoundCloudConnection] {
        let json = try await get("/me/connections")
        guard let items = json.array ?? json["collection"]?.array else {
            throw .invalidResponse(reason: "the connections are not a list", status: 200)
        }
        var connections: [SoundCloudConnection] = []
        for item in items { connections.append(try SoundCloudConnection(json: item)) }
        return connections
    }

    /// Starts a new connection (`POST /me/connections`) and returns the URL the user must open
    /// to connect the network; it ends at `redirectURI`, and the connection is listed from then on.
    /// - Parameter display: `touch` or `popup`, a hint for the network's login page.
    public func createConnection(service: SoundCloudConnectionService, redirectURI: String,
                                 display: String? = nil) async throws(SoundCloudError) -> String {
        var fields = [("service", service.rawValue), ("redirect_uri", redirectURI)]
        if let display { fields.append(("display", display)) }
        let response = try await perform(.post, "/me/connections", parameters: fields)
        guard let url = response.json["authorize_url"]?.string else {
            throw .invalidResponse(reason: "no authorize_url in the answer", status: response.status)
        }
        return url
    }
}
