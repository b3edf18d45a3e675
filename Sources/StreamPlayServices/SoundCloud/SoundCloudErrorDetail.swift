/// One entry of the `errors` list of a SoundCloud error body: a validation problem
/// (`{"error_message": "track[title] can't be blank", "field": "track[title]"}`) or a rate
/// limit record (`{"meta": {"rate_limit": ..., "reset_time": ...}}`).
public struct SoundCloudErrorDetail: Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, as SoundCloud words it (`error_message`).
    public var message: String?
    /// The request field it concerns (`field`), e.g. `track[title]`.
    public var field: String?
    /// The entry as sent, for members not modelled here (`meta` of a rate limit).
    public var json: JSON

    /// An entry read from its JSON.
    public init(json: JSON) {
        self.json = json
        message = json["error_message"]?.string ?? json["message"]?.string
        field = json["field"]?.string
    }

    /// `field: message`, or the entry's JSON when it has neither.
    public var description: String {
        switch (field, message) {
        case let (field?, message?): "\(field): \(message)"
        case let (nil, message?): message
        case let (field?, nil): field
        default: json.description
        }
    }
}
