/// An OpenID attribute exchange (AX) attribute to ask Spark for at sign-in: an alias of the
/// client's choosing and the attribute's type URI.
public struct SparkOpenIDAttribute: Sendable, Hashable, CustomStringConvertible {
    /// The alias in `openid.ax.type.ALIAS` (letters, digits, `_` and `-`).
    public var alias: String
    /// The attribute's type URI (openid.net/schema or axschema.org).
    public var typeURI: String
    /// Whether it goes in `openid.ax.required` (else `openid.ax.if_available`).
    public var isRequired: Bool

    /// An attribute; required unless told.
    public init(alias: String, typeURI: String, isRequired: Bool = true) {
        self.alias = alias
        self.typeURI = typeURI
        self.isRequired = isRequired
    }

    /// The user's e-mail address.
    public static let email = SparkOpenIDAttribute(alias: "email", typeURI: "http://openid.net/schema/contact/internet/email")
    /// The user's first name.
    public static let firstName = SparkOpenIDAttribute(alias: "first_name", typeURI: "http://openid.net/schema/namePerson/first")
    /// The user's last name.
    public static let lastName = SparkOpenIDAttribute(alias: "last_name", typeURI: "http://openid.net/schema/namePerson/last")
    /// The user's screen name.
    public static let friendlyName = SparkOpenIDAttribute(alias: "friendly", typeURI: "http://openid.net/schema/namePerson/friendly")
    /// The user's full name.
    public static let fullName = SparkOpenIDAttribute(alias: "name", typeURI: "http://openid.net/schema/namePerson")

    /// What SparkiOS asked for: e-mail, first, last and friendly name.
    public static let defaults: [SparkOpenIDAttribute] = [.email, .firstName, .lastName, .friendlyName]

    /// `alias=typeURI`.
    public var description: String { "\(alias)=\(typeURI)" }
}
