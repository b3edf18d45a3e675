/// Where in a list of URIs ``SpotifyClient/play(uris:offset:positionMilliseconds:deviceID:)``
/// starts.
public enum SpotifyPlayOffset: Sendable, Equatable {
    /// The item at this index (0 is the first).
    case position(Int)
    /// The item with this URI.
    case uri(String)

    /// The `offset` member of the play request.
    var json: JSON {
        switch self {
        case .position(let index): ["position": .number(Double(index))]
        case .uri(let uri): ["uri": .string(uri)]
        }
    }
}
