import StreamPlayServices

/// A JSON object's shape as a published API reference lists it: its members, each with a type,
/// whether it is required and whether it may be null. A stand-in's answer is checked against
/// one of these with ``violations(of:at:)``; unknown members are allowed, as the services add
/// members without notice.
public struct JSONObjectSchema: Sendable {
    /// A member's type.
    public indirect enum Kind: Sendable {
        /// A string; with values, one of them.
        case string(oneOf: [String]? = nil)
        /// A whole number.
        case integer
        /// Any number, whole or not (OpenAPI's `number`).
        case number
        /// true or false.
        case boolean
        /// Any JSON object (its members unchecked).
        case anyObject
        /// An object of this schema.
        case object(JSONObjectSchema)
        /// An array whose elements are all of this kind.
        case array(Kind)
    }

    /// One member of an object.
    public struct Member: Sendable {
        /// The member's name.
        public var name: String
        /// Its type.
        public var kind: Kind
        /// Whether the reference marks it required (else it may be absent).
        public var isRequired: Bool
        /// Whether it may be `null`.
        public var isNullable: Bool

        /// A member.
        public init(_ name: String, _ kind: Kind, required: Bool = true, nullable: Bool = false) {
            self.name = name
            self.kind = kind
            isRequired = required
            isNullable = nullable
        }
    }

    /// The object's name in the reference (`TrackObject`).
    public var name: String
    /// Its members.
    public var members: [Member]

    /// A schema.
    public init(_ name: String, _ members: [Member]) {
        self.name = name
        self.members = members
    }

    /// Where `json` leaves the schema, one line each (empty: it conforms).
    /// - Parameters:
    ///   - json: the answer (or member) to check.
    ///   - path: the name of `json` in the lines (`track`, `devices[0]`).
    public func violations(of json: JSON, at path: String = "$") -> [String] {
        guard case .object(let object) = json else { return ["\(path): \(name) must be an object"] }
        var found: [String] = []
        for member in members {
            let place = "\(path).\(member.name)"
            guard let value = object[member.name] else {
                if member.isRequired { found.append("\(place): required by \(name), missing") }
                continue
            }
            if value == .null {
                if !member.isNullable { found.append("\(place): null, which \(name) does not allow") }
                continue
            }
            found += Self.violations(of: value, kind: member.kind, at: place)
        }
        return found
    }

    private static func violations(of value: JSON, kind: Kind, at place: String) -> [String] {
        switch kind {
        case .string(let allowed):
            guard let text = value.string else { return ["\(place): must be a string"] }
            if let allowed, !allowed.contains(text) { return ["\(place): \"\(text)\" is not one of \(allowed)"] }
            return []
        case .integer:
            return value.int == nil ? ["\(place): must be an integer"] : []
        case .number:
            if case .number = value { return [] }
            return ["\(place): must be a number"]
        case .boolean:
            if case .bool = value { return [] }
            return ["\(place): must be true or false"]
        case .anyObject:
            return value.object == nil ? ["\(place): must be an object"] : []
        case .object(let schema):
            return schema.violations(of: value, at: place)
        case .array(let element):
            guard let items = value.array else { return ["\(place): must be an array"] }
            return items.enumerated().flatMap { Self.violations(of: $1, kind: element, at: "\(place)[\($0)]") }
        }
    }
}
