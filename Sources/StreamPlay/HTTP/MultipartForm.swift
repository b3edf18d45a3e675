/// A multipart/form-data body, as an upload sends it: text fields and files, in order.
///
/// libcurl writes the body (its MIME API), reading files as it sends them, so an upload of a
/// large track never sits in memory whole.
public struct MultipartForm: Sendable {
    /// One part of the form.
    public enum Part: Sendable {
        /// A text field.
        case field(name: String, value: String)
        /// A file read from `path` while sending; `filename` is what the server is told.
        case file(name: String, path: String, filename: String, contentType: String)
        /// In-memory data sent as a file.
        case data(name: String, bytes: [UInt8], filename: String, contentType: String)
    }

    /// The parts, in order.
    public var parts: [Part]

    /// A form with `parts`.
    public init(_ parts: [Part] = []) {
        self.parts = parts
    }

    /// Appends a text field.
    public mutating func add(_ name: String, _ value: String) {
        parts.append(.field(name: name, value: value))
    }
}
