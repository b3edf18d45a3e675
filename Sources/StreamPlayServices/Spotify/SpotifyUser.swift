/// The signed-in user, from `GET /v1/me`.
public struct SpotifyUser: Sendable, Equatable {
    /// The user id (also in `spotify:user:ID`).
    public var id: String
    /// The name shown in Spotify, if the user set one.
    public var displayName: String?
    /// The e-mail address (needs the `user-read-email` scope).
    public var email: String?
    /// "premium" or "free" (needs `user-read-private`); playback control needs premium.
    public var product: String?
    /// The ISO 3166-1 alpha-2 country (needs `user-read-private`).
    public var country: String?
    /// `spotify:user:ID`.
    public var uri: String?

    /// A user.
    public init(id: String, displayName: String? = nil, email: String? = nil, product: String? = nil,
                country: String? = nil, uri: String? = nil) {
        self.id = id
        self.displayName = displayName
        self.email = email
        self.product = product
        self.country = country
        self.uri = uri
    }

    /// Whether the user has Spotify Premium (nil: the product was not in the answer).
    public var isPremium: Bool? { product.map { $0 == "premium" } }

    /// A user object of the Web API.
    init(json: JSON, status: Int) throws(SpotifyError) {
        guard let id = json["id"]?.string else {
            throw .invalidResponse(reason: "no id in the user object", status: status)
        }
        self.init(id: id, displayName: json["display_name"]?.string, email: json["email"]?.string,
                  product: json["product"]?.string, country: json["country"]?.string, uri: json["uri"]?.string)
    }
}
