import StreamPlay

extension SoundCloudClient {
    /// SoundCloud's sign-out endpoint: `POST /sign-out` on the token host.
    ///
    /// The OpenAPI lists `POST /sign-out` ("invalidates session associated with current token")
    /// without naming a host or body of its own; SoundCloud's guide (and the project's notes on
    /// the service today) put it on the token and sign-in host, secure.soundcloud.com, with the
    /// access token in a JSON body. So: the token URL's origin, path `/sign-out`.
    public var signOutURL: String {
        URLOrigin.absolute("/sign-out", base: configuration.tokenURL)
    }

    /// Signs out: asks SoundCloud to end the session (`POST /sign-out` on the token host, see
    /// ``signOutURL``, body `{"access_token": TOKEN}`), then ends the local session and deletes
    /// the stored tokens, whatever SoundCloud answered.
    /// - Throws: ``SoundCloudError`` when SoundCloud could not be told (no answer, an error
    ///   status); the local session is over all the same. Nothing is sent without a session.
    public func signOut() async throws(SoundCloudError) {
        let token = await oauth.currentToken?.accessToken
        await oauth.signOut()
        guard let token else { return }
        let body: JSON = ["access_token": .string(token)]
        let request = HTTPRequest(method: .post, url: signOutURL, headers: ["Accept": "application/json"],
                                  body: .bytes(body.encoded(), contentType: "application/json"))
        let response: HTTPResponse
        do {
            response = try await oauth.http.send(request)
        } catch {
            logger.warning("SoundCloud sign-out not sent; local tokens deleted", metadata: ["error": "\(error)"])
            if case .cancelled = error { throw .cancelled }
            throw .transport(error)
        }
        guard response.isSuccess else {
            logger.warning("SoundCloud refused the sign-out; local tokens deleted", metadata: ["status": "\(response.status)"])
            throw SoundCloudError.from(response)
        }
        logger.info("signed out of SoundCloud")
    }
}
