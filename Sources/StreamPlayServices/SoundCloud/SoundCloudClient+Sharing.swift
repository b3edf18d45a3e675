import StreamPlay

extension SoundCloudClient {
    /// Uploads a track (`POST /tracks`, multipart) and returns it as created (its `state` is
    /// `processing` at first). Needs a user's token.
    /// - Parameters:
    ///   - upload: the file and the track's fields.
    ///   - progress: called with (bytes sent, bytes to send) while the file goes out.
    ///
    /// The sharing fields `track[post_to]` and `track[shared_to]` are legacy (the 2012 upload &
    /// share guide; not in today's OpenAPI): they are sent only when the upload asks for them.
    /// - Throws: ``SoundCloudError/api(_:)`` with status 422 and the problems by field when
    ///   SoundCloud refuses the fields; ``SoundCloudError/invalidRequest(reason:)`` for sharing
    ///   that cannot work (see ``SoundCloudUpload/multipartForm()``);
    ///   ``SoundCloudError/legacyFeatureUnavailable(feature:status:message:)`` when an upload
    ///   that uses the legacy sharing fields is refused with 400, 404 or 410.
    public func upload(_ upload: SoundCloudUpload,
                       progress: (@Sendable (Int64, Int64) -> Void)? = nil) async throws(SoundCloudError) -> SoundCloudTrack {
        let form = try upload.multipartForm()
        let response: SoundCloudResponse
        do {
            response = try await perform(.post, "/tracks", body: .multipart(form), uploadProgress: progress)
        } catch {
            guard upload.usesLegacySharing else { throw error }
            throw Self.legacyRefusal(error, feature: "sharing an upload to connections or by e-mail (track[post_to], track[shared_to])",
                                     statuses: [400, 404, 410])
        }
        let track = try SoundCloudTrack(json: response.json)
        logger.info("track uploaded", metadata: ["track": "\(track.urn)", "sharing": "\(upload.sharing.rawValue)"])
        return track
    }

    /// Legacy: the user's connections to social networks (`GET /me/connections`), from the
    /// 2012 upload & share guide; today's OpenAPI no longer lists the endpoint.
    /// - Throws: ``SoundCloudError/legacyFeatureUnavailable(feature:status:message:)`` when
    ///   SoundCloud answers 404, 410 or 400; other errors as any request.
    public func connections() async throws(SoundCloudError) -> [SoundCloudConnection] {
        let json: JSON
        do {
            json = try await get("/me/connections")
        } catch {
            throw Self.legacyRefusal(error, feature: "connections (/me/connections)", statuses: [400, 404, 410])
        }
        guard let items = json.array ?? json["collection"]?.array else {
            throw .invalidResponse(reason: "the connections are not a list", status: 200)
        }
        var connections: [SoundCloudConnection] = []
        for item in items { connections.append(try SoundCloudConnection(json: item)) }
        return connections
    }

    /// Legacy: starts a new connection (`POST /me/connections`) and returns the URL the user
    /// must open to connect the network; it ends at `redirectURI`, and the connection is listed
    /// from then on. From the 2012 API; today's OpenAPI no longer lists the endpoint.
    /// - Parameters:
    ///   - service: the network to connect.
    ///   - redirectURI: where the network's login page sends the user back to.
    ///   - display: `touch` or `popup`, a hint for the network's login page.
    /// - Throws: ``SoundCloudError/legacyFeatureUnavailable(feature:status:message:)`` when
    ///   SoundCloud answers 404, 410 or 400.
    public func createConnection(service: SoundCloudConnectionService, redirectURI: String,
                                 display: String? = nil) async throws(SoundCloudError) -> String {
        var fields = [("service", service.rawValue), ("redirect_uri", redirectURI)]
        if let display { fields.append(("display", display)) }
        let response: SoundCloudResponse
        do {
            response = try await perform(.post, "/me/connections", parameters: fields)
        } catch {
            throw Self.legacyRefusal(error, feature: "connections (/me/connections)", statuses: [400, 404, 410])
        }
        guard let url = response.json["authorize_url"]?.string else {
            throw .invalidResponse(reason: "no authorize_url in the answer", status: response.status)
        }
        return url
    }

    /// `error` as ``SoundCloudError/legacyFeatureUnavailable(feature:status:message:)`` when it
    /// is SoundCloud refusing `feature` with one of `statuses`; otherwise `error` as it is.
    static func legacyRefusal(_ error: SoundCloudError, feature: String, statuses: Set<Int>) -> SoundCloudError {
        let body: SoundCloudErrorBody
        switch error {
        case .notFound(let refused), .api(let refused), .forbidden(let refused): body = refused
        default: return error
        }
        guard statuses.contains(body.status) else { return error }
        return .legacyFeatureUnavailable(feature: feature, status: body.status, message: body.message)
    }
}
