/// The signed-in user's account (`/v1/my/account`).
public struct SparkAccount: Sendable, Equatable {
    /// The Spark user id.
    public let id: String
    /// The account's display name ("StreamPlay Tester").
    public let name: String
    /// The first name, if given.
    public let firstName: String?
    /// The last name, if given.
    public let lastName: String?
    /// "Member", "Office", "Company", ...
    public let userType: String?
    /// The office name, if any.
    public let office: String?
    /// The MLS name, if any.
    public let mls: String?
    /// The primary e-mail address (or the first one), if any.
    public let primaryEmail: String?
    /// The whole account object, for the fields not modelled here.
    public let json: JSON

    /// Reads an account object.
    /// - Throws: ``SparkError/invalidResponse(reason:status:)`` without `Id` or `Name`.
    public init(json: JSON) throws(SparkError) {
        guard let id = json["Id"]?.string, let name = json["Name"]?.string else {
            throw .invalidResponse(reason: "the account has no Id or Name", status: 200)
        }
        self.id = id
        self.name = name
        firstName = json["FirstName"]?.string
        lastName = json["LastName"]?.string
        userType = json["UserType"]?.string
        office = json["Office"]?.string
        mls = json["Mls"]?.string
        let emails = json["Emails"]?.array ?? []
        let primary = emails.first { $0["Primary"]?.bool == true } ?? emails.first
        primaryEmail = primary?["Address"]?.string
        self.json = json
    }
}
