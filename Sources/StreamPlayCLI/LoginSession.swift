import ArgumentParser
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

/// Spark's sign-in flows: OpenID Connect (the documented way today, the default), or the
/// seed's OpenID 2.0 flows.
enum SparkSignIn: String, CaseIterable, ExpressibleByArgument {
    /// OpenID Connect: discovery, /openid/authorize, code exchange, the ID token verified.
    case openIDConnect = "openid-connect"
    /// OpenID 2.0 with an OAuth 2 code (Spark's Hybrid flow).
    case hybrid
    /// Plain OpenID 2.0: identity and attributes only, no API session.
    case openID = "openid"
}

/// Spark: OpenID Connect by default; the Hybrid flow (OpenID sign-in that also gives an OAuth 2
/// code) or plain OpenID 2.0 when asked.
struct SparkLogin: LoginSession {
    let client: SparkClient
    let flow: SparkSignIn
    let openIDConnect: SparkOpenIDConnectRequest?
    let openID: SparkOpenIDRequest?
    var authorizationURL: String { openIDConnect?.url ?? openID?.url ?? "" }

    init(client: SparkClient, flow: SparkSignIn, returnTo: String) async throws {
        self.client = client
        self.flow = flow
        if flow == .openIDConnect {
            openIDConnect = try await client.makeOpenIDConnectRequest(redirectURI: returnTo)
            openID = nil
        } else {
            openIDConnect = nil
            openID = client.makeOpenIDRequest(hybrid: flow == .hybrid, returnTo: returnTo)
        }
    }

    func complete(redirect: String) async throws {
        if let openIDConnect {
            try await client.completeOpenIDConnect(openIDConnect, redirect: redirect)
        } else if let openID {
            let result = try await client.completeOpenID(openID, returnURL: redirect)
            if !result.hasAPISession {
                StandardStream.error("OpenID identity (unverified, no API session): \(result.identity)\n")
            }
        }
    }
}
