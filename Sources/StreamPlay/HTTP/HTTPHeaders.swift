/// The header fields of an HTTP request or response, in order, names compared without case.
public struct HTTPHeaders: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    /// The fields as sent or received.
    public private(set) var fields: [(name: String, value: String)]

    /// Headers with `fields`, in that order.
    public init(_ fields: [(name: String, value: String)] = []) {
        self.fields = fields
    }

    /// Headers from a literal: `["Accept": "application/json"]`.
    public init(dictionaryLiteral elements: (String, String)...) {
        fields = elements.map { (name: $0.0, value: $0.1) }
    }

    /// The first value of `name`, if any.
    public subscript(name: String) -> String? {
        fields.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// Replaces every field called `name` with one of `value`.
    public mutating func set(_ name: String, _ value: String) {
        remove(name)
        fields.append((name, value))
    }

    /// Adds a field, keeping others of the same name.
    public mutating func add(_ name: String, _ value: String) {
        fields.append((name, value))
    }

    /// Removes every field called `name`.
    public mutating func remove(_ name: String) {
        fields.removeAll { $0.name.lowercased() == name.lowercased() }
    }

    /// Iterates over the fields in order.
    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> {
        fields.makeIterator()
    }

    /// Equal when the same fields come in the same order.
    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.fields.elementsEqual(rhs.fields) { $0.name == $1.name && $0.value == $1.value }
    }
}
