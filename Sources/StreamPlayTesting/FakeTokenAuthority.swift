import StreamPlayServices
import Synchronization

/// The token side of a fake service: codes, access and refresh tokens, their expiry and
/// revocation, and a count of grants by type. Tokens are opaque strings.
///
/// Each fake keeps one (``FakeOAuthService/tokenAuthority``); tests reach it through the
/// ``FakeOAuthService`` members (``FakeOAuthService/authorize(_:user:)``,
/// ``FakeOAuthService/expireAccessTokens()``, ...), while the fakes' endpoints use the rest,
/// which is internal to this library.
public final class FakeTokenAuthority: Sendable {
    /// What a token stands for.
    struct Grant: Sendable, Equatable {
        /// The signed-in user; nil for the app's own (client credentials) token.
        var user: String?
        /// Space-separated scopes.
        var scope: String
    }

    /// What an access token presented to the API is.
    enum Check: Sendable, Equatable {
        case valid(Grant)
        case expired
        case unknown
    }

    /// Why a grant was refused: an OAuth error code and its description.
    struct Refusal: Error, Sendable {
        var error: String
        var description: String
    }

    private struct Code: Sendable {
        var grant: Grant
        var redirectURI: String?
        var challenge: String?
    }

    private struct AccessToken: Sendable {
        var grant: Grant
        var isExpired: Bool
    }

    private struct State: Sendable {
        var serial = 0
        var codes: [String: Code] = [:]
        var access: [String: AccessToken] = [:]
        var refresh: [String: Grant] = [:]
        var grants: [String: Int] = [:]
    }

    private let state = Mutex(State())
    private let prefix: String

    /// An authority whose tokens start with `prefix` (the service's name, for reading logs).
    init(prefix: String) {
        self.prefix = prefix
    }

    private func next(_ kind: String, _ state: inout State) -> String {
        state.serial += 1
        return "\(prefix)-\(kind)-\(state.serial)"
    }

    /// A single-use authorization code for `grant`.
    func makeCode(_ grant: Grant, redirectURI: String?, challenge: String?) -> String {
        state.withEngineLock { state in
            let code = next("code", &state)
            state.codes[code] = Code(grant: grant, redirectURI: redirectURI, challenge: challenge)
            return code
        }
    }

    /// The grant of `code`, used up even when the exchange then fails (as real servers do).
    func redeem(code: String, redirectURI: String?, verifier: String?) throws(Refusal) -> Grant {
        let found = state.withEngineLock { $0.codes.removeValue(forKey: code) }
        guard let found else { throw Refusal(error: "invalid_grant", description: "Invalid authorization code") }
        if let expected = found.redirectURI, expected != redirectURI {
            throw Refusal(error: "invalid_grant", description: "Invalid redirect URI")
        }
        if let challenge = found.challenge {
            guard let verifier else { throw Refusal(error: "invalid_request", description: "code_verifier required") }
            guard PKCE(verifier: verifier).challenge == challenge else {
                throw Refusal(error: "invalid_grant", description: "code_verifier was incorrect")
            }
        }
        return found.grant
    }

    /// New tokens for `grant`; a refresh token too when `withRefreshToken`.
    func issue(_ grant: Grant, grantType: String, withRefreshToken: Bool) -> (access: String, refresh: String?) {
        state.withEngineLock { state in
            state.grants[grantType, default: 0] += 1
            let access = next("access", &state)
            state.access[access] = AccessToken(grant: grant, isExpired: false)
            var refresh: String?
            if withRefreshToken {
                let token = next("refresh", &state)
                state.refresh[token] = grant
                refresh = token
            }
            return (access, refresh)
        }
    }

    /// The grant of `refreshToken`; with `rotates`, the token is used up.
    func useRefreshToken(_ refreshToken: String, rotates: Bool) throws(Refusal) -> Grant {
        let grant = state.withEngineLock { state in
            rotates ? state.refresh.removeValue(forKey: refreshToken) : state.refresh[refreshToken]
        }
        guard let grant else { throw Refusal(error: "invalid_grant", description: "Invalid refresh token") }
        return grant
    }

    /// What `accessToken` is.
    func check(_ accessToken: String?) -> Check {
        guard let accessToken else { return .unknown }
        return state.withEngineLock { state in
            guard let token = state.access[accessToken] else { return .unknown }
            return token.isExpired ? .expired : .valid(token.grant)
        }
    }

    /// Every access token issued so far is expired from now on.
    func expireAccessTokens() {
        state.withEngineLock { state in
            for key in state.access.keys { state.access[key]?.isExpired = true }
        }
    }

    /// Every refresh token issued so far is refused from now on.
    func revokeRefreshTokens() {
        state.withEngineLock { $0.refresh.removeAll() }
    }

    /// Every access token issued so far is unknown from now on (signed out).
    func revoke(accessToken: String) {
        state.withEngineLock { _ = $0.access.removeValue(forKey: accessToken) }
    }

    /// Tokens issued by grant type (`client_credentials`, `authorization_code`, `refresh_token`).
    func grantCount(_ grantType: String) -> Int {
        state.withEngineLock { $0.grants[grantType] ?? 0 }
    }
}
