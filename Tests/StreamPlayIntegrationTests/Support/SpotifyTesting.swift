import Foundation
import Logging
import StreamPlay
import Testing
@testable import StreamPlayServices

/// Spotify clients against the stand-in (scripts/service-stubs.py), signed in the way a user
/// would be: the authorize URL followed like a browser, the redirect taken by a loopback
/// listener.
enum SpotifyTesting {
    /// How the client authenticates at the token endpoint.
    enum Mode {
        /// No client secret: a public PKCE client.
        case publicClient
        /// With the client secret (HTTP Basic).
        case confidential
        /// Through the app's token swap and refresh service.
        case swapService
        /// Through a swap service that forwards `code_verifier` (the stand-in's `/swap-pkce`),
        /// configured as doing so.
        case swapServiceForwardingVerifier
        /// Through the seed-style swap service (`/swap`, which drops `code_verifier`), wrongly
        /// configured as forwarding it: the exchange fails, as the issue describes.
        case swapServiceMisconfigured
        /// With the client secret (HTTP Basic) of the stand-in's other app, one in Development
        /// Mode: Spotify's February 2026 rules apply to its tokens.
        case developmentModeApp
    }

    static let previewTrack = "0StrmPlyPreviewTrack01"
    static let noPreviewTrack = "0StrmPlyNoPreviewTrk01"
    static let computer = "d" + String(repeating: "0", count: 38) + "1"
    static let speaker = "d" + String(repeating: "0", count: 38) + "2"

    /// The stand-in's configuration for `mode`.
    static func configuration(_ mode: Mode, redirectURI: String?, scopes: [String]? = nil) throws -> ServiceConfiguration {
        var configuration = try ServiceStubs.configuration(.spotify, redirectURI: redirectURI, scopes: scopes)
        switch mode {
        case .publicClient:
            configuration.clientSecret = nil
            configuration.tokenSwapURL = nil
            configuration.tokenRefreshURL = nil
        case .confidential:
            configuration.tokenSwapURL = nil
            configuration.tokenRefreshURL = nil
        case .swapService:
            configuration.clientSecret = nil
        case .swapServiceForwardingVerifier:
            configuration.clientSecret = nil
            configuration.tokenSwapURL = configuration.tokenSwapURL.map { String($0.dropLast("/swap".count)) + "/swap-pkce" }
            configuration.tokenSwapForwardsCodeVerifier = true
        case .swapServiceMisconfigured:
            configuration.clientSecret = nil
            configuration.tokenSwapForwardsCodeVerifier = true
        case .developmentModeApp:
            configuration.clientID = try ServiceStubs.value(.spotify, "DEV_CLIENT_ID")
            configuration.clientSecret = try ServiceStubs.value(.spotify, "DEV_CLIENT_SECRET")
            configuration.tokenSwapURL = nil
            configuration.tokenRefreshURL = nil
        }
        return configuration
    }

    /// A client signed in as `user` (a fresh one by default), through a loopback listener.
    static func signedIn(_ mode: Mode = .publicClient, user: String = ServiceStubs.uniqueUser("sp"), product: String? = nil,
                         scopes: [String]? = nil, store: (any TokenStore)? = nil, showDialog: Bool = false,
                         logger: Logger = Logger(label: "streamplay.spotify")) async throws -> SpotifyClient {
        let listener = try LoopbackRedirectListener()
        defer { listener.close() }
        let client = SpotifyClient(configuration: try configuration(mode, redirectURI: listener.redirectURI, scopes: scopes),
                                   store: store, logger: logger)
        let request = try await client.makeAuthorizationRequest(showDialog: showDialog)
        var extra = [("stub_user", user)]
        if let product { extra.append(("stub_product", product)) }
        async let redirect = listener.waitForRedirect(timeout: 20)
        try await ServiceStubs.browse(request.url, extra: extra)
        try await client.completeAuthorization(request, redirect: try await redirect)
        return client
    }

    /// Log entries of the Spotify `host` (accounts, api, cdn, swap) since `mark`.
    static func log(after mark: Int, host: String? = nil) throws -> [[String: Any]] {
        try ServiceStubs.log(after: mark).filter {
            $0["service"] as? String == "spotify" && (host == nil || $0["host"] as? String == host)
        }
    }

    /// The error `body` throws, or nil (with an issue recorded) when it does not throw.
    static func error<T>(_ body: () async throws -> T) async -> SpotifyError? {
        do {
            _ = try await body()
            Issue.record("expected a SpotifyError, got a result")
            return nil
        } catch let error as SpotifyError {
            return error
        } catch {
            Issue.record("expected a SpotifyError, got \(error)")
            return nil
        }
    }
}
