import StreamPlayServices

/// One sign-in under way: the URL for the browser, and how to finish with the redirect.
protocol LoginSession: Sendable {
    var authorizationURL: String { get }
    func complete(redirect: String) async throws
}

/// SoundCloud: OAuth 2.1, authorization code with PKCE.
struct SoundCloudLogin: LoginSession {
    let client: SoundCloudClient
    let request: AuthorizationRequest
    var authorizationURL: String { request.url }

    init(client: SoundCloudClient) async {
        self.client = client
        request = await client.oauth.makeAuthorizationRequest()
    }

    func complete(redirect: String) async throws {
        try await client.oauth.completeAuthorization(request, redirect: redirect)
    }
}

/// Spotify: authorization code with PKCE (and show_dialog when asked).
struct SpotifyLogin: LoginSession {
    let client: SpotifyClient
    let request: AuthorizationRequest
    var authorizationURL: String { request.url }

    init(client: SpotifyClient, showDialog: Bool) async throws {
        self.client = client
        request = try await client.makeAuthorizationRequest(showDialog: showDialog)
    }

    func complete(redirect: String) async throws {
        try await client.completeAuthorization(request, redirect: redirect)
    }
}

/// Spark: the OpenID Hybrid flow (OpenID sign-in that also gives an OAuth 2 code).
struct SparkLogin: LoginSession {
    let client: SparkClient
    let request: SparkOpenIDRequest
    var authorizationURL: String { request.url }

    init(client: SparkClient, returnTo: String) {
        self.client = client
        request = client.makeOpenIDRequest(hybrid: true, returnTo: returnTo)
    }

    func complete(redirect: String) async throws {
        _ = try await client.completeOpenID(request, returnURL: redirect)
    }
}
