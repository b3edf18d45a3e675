/// A tag of an upload's `track[tag_list]`: a plain tag, or a machine tag
/// `NAMESPACE:KEY=VALUE` (geo coordinates, a foursquare venue, any other namespace).
public enum SoundCloudTag: Sendable, Equatable, CustomStringConvertible {
    /// A plain tag ("electronic", "hip hop").
    case plain(String)
    /// A machine tag, `namespace:key=value`.
    case machine(namespace: String, key: String, value: String)

    /// The `geo:lat=` tag.
    public static func latitude(_ degrees: Double) -> SoundCloudTag { .machine(namespace: "geo", key: "lat", value: "\(degrees)") }
    /// The `geo:lon=` tag.
    public static func longitude(_ degrees: Double) -> SoundCloudTag { .machine(namespace: "geo", key: "lon", value: "\(degrees)") }
    /// The `geo:lat=` and `geo:lon=` tags of a place.
    public static func geo(latitude: Double, longitude: Double) -> [SoundCloudTag] { [.latitude(latitude), .longitude(longitude)] }
    /// The `foursquare:venue=` tag, needed to post to a foursquare connection.
    public static func foursquareVenue(_ id: String) -> SoundCloudTag { .machine(namespace: "foursquare", key: "venue", value: id) }

    /// The tag as written, without quotes.
    public var description: String {
        switch self {
        case .plain(let text): text
        case .machine(let namespace, let key, let value): "\(namespace):\(key)=\(value)"
        }
    }

    /// The tag as it goes into the list: quoted when it contains a space.
    /// - Throws: ``SoundCloudError/invalidRequest(reason:)`` for an empty tag or one with a
    ///   double quote (the list cannot carry it).
    func encoded() throws(SoundCloudError) -> String {
        let text = description
        guard !text.trimmedWhitespace.isEmpty else { throw .invalidRequest(reason: "an empty tag") }
        guard !text.contains("\"") else { throw .invalidRequest(reason: "the tag \(text) contains a double quote") }
        return text.contains(where: \.isWhitespace) ? "\"\(text)\"" : text
    }

    /// The `track[tag_list]` value of `tags`.
    static func list(_ tags: [SoundCloudTag]) throws(SoundCloudError) -> String {
        var parts: [String] = []
        for tag in tags { parts.append(try tag.encoded()) }
        return parts.joined(separator: " ")
    }
}
