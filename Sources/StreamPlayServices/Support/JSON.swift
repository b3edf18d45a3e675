import FoundationEssentials

/// Any JSON value, for API answers whose shape is open (a general request method, Spark's
/// `Results`, error bodies). Typed models decode from it with ``decode(_:)``.
public enum JSON: Sendable, Equatable, Codable, CustomStringConvertible {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number (integers too; ``int`` reads them back).
    case number(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSON])
    /// An object.
    case object([String: JSON])

    /// Parses `bytes` as JSON.
    /// - Throws: ``JSONError`` when the bytes are not JSON.
    public init(parsing bytes: [UInt8]) throws(JSONError) {
        do {
            self = try JSONDecoder().decode(JSON.self, from: Data(bytes))
        } catch {
            throw JSONError(reason: "not JSON (\(bytes.count) bytes)")
        }
    }

    /// Decodes a JSON value from a decoder.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let value = try? container.decode(Bool.self) { self = .bool(value) }
        else if let value = try? container.decode(Double.self) { self = .number(value) }
        else if let value = try? container.decode(String.self) { self = .string(value) }
        else if let value = try? container.decode([JSON].self) { self = .array(value) }
        else { self = .object(try container.decode([String: JSON].self)) }
    }

    /// Encodes the value.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value):
            if value.rounded() == value, abs(value) < 1e15 { try container.encode(Int64(value)) } else { try container.encode(value) }
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// The member `key` of an object (nil for other values or a missing key).
    public subscript(key: String) -> JSON? {
        if case .object(let object) = self { return object[key] }
        return nil
    }

    /// The element at `index` of an array (nil when out of range or not an array).
    public subscript(index: Int) -> JSON? {
        if case .array(let array) = self, array.indices.contains(index) { return array[index] }
        return nil
    }

    /// The string, if this is one.
    public var string: String? { if case .string(let value) = self { value } else { nil } }
    /// The number, if this is one.
    public var double: Double? { if case .number(let value) = self { value } else { nil } }
    /// The number as an integer, if this is a whole number.
    public var int: Int? {
        guard case .number(let value) = self, value.rounded() == value, abs(value) < 9e15 else { return nil }
        return Int(value)
    }
    /// The Boolean, if this is one.
    public var bool: Bool? { if case .bool(let value) = self { value } else { nil } }
    /// The elements, if this is an array.
    public var array: [JSON]? { if case .array(let value) = self { value } else { nil } }
    /// The members, if this is an object.
    public var object: [String: JSON]? { if case .object(let value) = self { value } else { nil } }
    /// Whether this is `null`.
    public var isNull: Bool { self == .null }

    /// The value as compact JSON text, keys sorted.
    public var description: String { String(decoding: encoded(), as: UTF8.self) }

    /// The value as compact JSON bytes, keys sorted.
    public func encoded() -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? Array(encoder.encode(self))) ?? Array("null".utf8)
    }

    /// Decodes a typed model from this value.
    /// - Throws: ``JSONError`` naming the type when the value does not fit it.
    public func decode<T: Decodable>(_ type: T.Type) throws(JSONError) -> T {
        do {
            return try JSONDecoder().decode(T.self, from: Data(encoded()))
        } catch {
            throw JSONError(reason: "does not fit \(T.self): \(error)")
        }
    }
}

/// JSON that could not be read, or did not have the expected shape.
public struct JSONError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was wrong.
    public let reason: String
    /// A JSON error with its reason.
    public init(reason: String) { self.reason = reason }
    /// The reason.
    public var description: String { "invalid JSON: \(reason)" }
}

extension JSON: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral {
    /// A string literal.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An integer literal.
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    /// A floating-point literal.
    public init(floatLiteral value: Double) { self = .number(value) }
    /// `true` or `false`.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// An array literal.
    public init(arrayLiteral elements: JSON...) { self = .array(elements) }
    /// An object literal.
    public init(dictionaryLiteral elements: (String, JSON)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { $1 }))
    }
    /// `nil` is `null`.
    public init(nilLiteral: ()) { self = .null }
}
