import FoundationEssentials

/// A value of a `--json` event line.
enum JSONValue: Encodable {
    case string(String)
    case number(Double)
    case integer(Int)
    case bool(Bool)

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .bool(let value): try container.encode(value)
        }
    }

    /// One event as a JSON object on a line of its own, keys sorted.
    static func line(_ object: [String: JSONValue]) -> String? {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(object) else { return nil }
        return String(decoding: data, as: UTF8.self) + "\n"
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral {
    init(stringLiteral value: String) { self = .string(value) }
    init(integerLiteral value: Int) { self = .integer(value) }
    init(floatLiteral value: Double) { self = .number(value) }
}

extension JSONValue {
    /// The value as plain text (no quotes).
    var text: String {
        switch self {
        case .string(let value): value
        case .number(let value): "\(value)"
        case .integer(let value): "\(value)"
        case .bool(let value): "\(value)"
        }
    }
}
