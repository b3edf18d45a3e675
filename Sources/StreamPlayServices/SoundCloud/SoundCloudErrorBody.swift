import FoundationEssentials
import StreamPlay

/// SoundCloud's error body, as every api.soundcloud.com error carries it:
/// `{"code": 404, "message": "...", "link": "...", "status": "404 - Not Found", "errors": [...],
/// "error": null}`.
public struct SoundCloudErrorBody: Sendable, Equatable, CustomStringConvertible {
    /// The HTTP status of the response.
    public var status: Int
    /// The body's `code` (the HTTP status again, as SoundCloud sends it), if present.
    public var code: Int?
    /// The body's `message`; the status line's wording when the body has none.
    public var message: String
    /// The body's `status` text, e.g. "422 - Unprocessable Entity".
    public var statusText: String?
    /// The body's `errors` list (validation problems, rate limit records).
    public var errors: [SoundCloudErrorDetail]
    /// The documentation link SoundCloud adds.
    public var link: String?

    /// A body with every field given.
    public init(status: Int, code: Int? = nil, message: String, statusText: String? = nil,
                errors: [SoundCloudErrorDetail] = [], link: String? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.statusText = statusText
        self.errors = errors
        self.link = link
    }

    /// The error body of `response`; a body that is not SoundCloud's JSON still gives one, with
    /// the status as its message.
    public init(response: HTTPResponse) {
        let json = try? JSON(parsing: response.body)
        status = response.status
        code = json?["code"]?.int
        statusText = json?["status"]?.string
        errors = json?["errors"]?.array?.map(SoundCloudErrorDetail.init(json:)) ?? []
        link = json?["link"]?.string
        let stated = json?["message"]?.string ?? json?["error"]?.string ?? ""
        if !stated.isEmpty {
            message = stated
        } else if let first = errors.first(where: { $0.message != nil })?.message {
            message = first
        } else {
            message = statusText ?? "HTTP \(response.status)"
        }
    }

    /// The `reset_time` of a rate limit body (429), if it names one.
    public var resetTime: Date? {
        for detail in errors {
            if let text = detail.json["meta"]?["reset_time"]?.string ?? detail.json["reset_time"]?.string,
               let date = SoundCloudTimestamp.parse(text) {
                return date
            }
        }
        return nil
    }

    /// `HTTP 422: message (field: problem; ...)`.
    public var description: String {
        var text = "HTTP \(status): \(message)"
        let details = errors.filter { $0.message != nil || $0.field != nil }.map(\.description)
        if !details.isEmpty { text += " (\(details.joined(separator: "; ")))" }
        return text
    }
}
