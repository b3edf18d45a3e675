import FoundationEssentials
import StreamPlay
import StreamPlayServices

/// Pieces the fakes' token endpoints and API checks share.
enum FakeOAuth {
    /// The answer of a route whose fake was released: the transport outlived it. The fakes'
    /// routes hold them weakly, since a fake owns its transport.
    static func gone(_ request: RecordedRequest) -> HTTPResponse {
        HTTPResponse(status: 503, headers: [:], body: Array("the fake behind this transport was released".utf8), url: request.url)
    }

    /// What a fake's API made of the token a request carries: the grant it stands for, or the
    /// answer that refuses the request.
    enum Authorization {
        case granted(FakeTokenAuthority.Grant)
        case refused(HTTPResponse)
    }

    /// How a token request named its client.
    struct ClientCredentials: Sendable {
        var id: String?
        var secret: String?
    }

    /// The client of a token request: HTTP Basic (id and secret form-encoded before Base64, RFC
    /// 6749 2.3.1) or `client_id` and `client_secret` in `fields`.
    static func client(of request: RecordedRequest, fields: [String: String]) -> ClientCredentials {
        if request.authorizationScheme?.lowercased() == "basic", let encoded = request.authorizationCredentials,
           let data = Data(base64Encoded: encoded) {
            let pair = String(decoding: data, as: UTF8.self)
            let parts = pair.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            return ClientCredentials(id: FormEncoding.percentDecode(parts[0]),
                                     secret: parts.count > 1 ? FormEncoding.percentDecode(parts[1]) : nil)
        }
        return ClientCredentials(id: fields["client_id"], secret: fields["client_secret"])
    }

    /// The form fields of `request` as a dictionary (the first value of each name).
    static func fields(of request: RecordedRequest) -> [String: String] {
        var fields: [String: String] = [:]
        for (name, value) in request.formFields where fields[name] == nil { fields[name] = value }
        return fields
    }

    /// An OAuth error answer: `{"error": E, "error_description": D}`.
    static func error(_ error: String, _ description: String, status: Int = 400, for request: RecordedRequest) -> HTTPResponse {
        .json(["error": .string(error), "error_description": .string(description)], status: status, for: request)
    }

    /// A token answer.
    static func token(access: String, refresh: String?, expiresIn: Int, tokenType: String, scope: String?,
                      for request: RecordedRequest) -> HTTPResponse {
        var object: [String: JSON] = ["access_token": .string(access), "token_type": .string(tokenType),
                                      "expires_in": .number(Double(expiresIn))]
        if let refresh { object["refresh_token"] = .string(refresh) }
        if let scope { object["scope"] = .string(scope) }
        return .json(.object(object), for: request)
    }

    /// The redirect a browser would be sent to after the user approved `authorizationURL` (an
    /// `AuthorizationRequest`'s URL): the redirect URI with `code` and `state`; the code is
    /// bound to the redirect URI and the PKCE challenge the URL carries.
    static func approve(_ authorizationURL: String, user: String, authority: FakeTokenAuthority,
                        bindsChallenge: Bool = true) -> String {
        let redirectField = "redirect_uri", stateField = "state"
        let parts = URLParts(authorizationURL)?.query ?? []
        func value(_ name: String) -> String? { parts.first { $0.name == name }?.value }
        let redirectURI = value(redirectField) ?? ""
        let code = authority.makeCode(FakeTokenAuthority.Grant(user: user, scope: value("scope") ?? ""),
                                      redirectURI: value(redirectField),
                                      challenge: bindsChallenge ? value("code_challenge") : nil)
        var fields = [("code", code)]
        if let state = value(stateField) { fields.append(("state", state)) }
        return redirectURI + (redirectURI.contains("?") ? "&" : "?") + FormEncoding.encode(fields)
    }

    /// A number as JSON.
    static func number(_ value: Int) -> JSON { .number(Double(value)) }
}
