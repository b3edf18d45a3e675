import FoundationEssentials
import StreamPlay

/// Reads a token endpoint's answer (RFC 6749 5.1 and 5.2).
enum TokenResponse {
    private struct Success: Decodable {
        let access_token: String
        let token_type: String?
        let expires_in: Double?
        let refresh_token: String?
        let scope: String?
        let id_token: String?
    }

    private struct Failure: Decodable {
        let error: String
        let error_description: String?
    }

    static func parse(_ response: HTTPResponse, now: Date = Date()) throws(OAuth2Error) -> OAuth2Token {
        let decoder = JSONDecoder()
        if response.isSuccess {
            guard let success = try? decoder.decode(Success.self, from: Data(response.body)) else {
                throw .invalidResponse(reason: "no access_token in the token response", status: response.status)
            }
            var token = OAuth2Token(accessToken: success.access_token, tokenType: success.token_type ?? "Bearer",
                                    refreshToken: success.refresh_token,
                                    expiresAt: success.expires_in.map { now.addingTimeInterval(Self.lifetime($0)) },
                                    scope: success.scope)
            token.idToken = success.id_token  // verified by the caller before it is believed
            return token
        }
        if let failure = try? decoder.decode(Failure.self, from: Data(response.body)) {
            throw .tokenRequestFailed(error: failure.error, description: failure.error_description, status: response.status)
        }
        throw .invalidResponse(reason: "the token endpoint answered without an OAuth error object", status: response.status)
    }

    /// `expires_in` within reason: 0 to 10 years (a server's nonsense must not overflow dates).
    static func lifetime(_ expiresIn: Double) -> Double {
        guard expiresIn.isFinite else { return 0 }
        return min(max(expiresIn, 0), 10 * 365 * 86400)
    }
}
