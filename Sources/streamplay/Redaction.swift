import StreamPlay

/// Input names as shown to people: URLs without query strings or credentials.
enum Redaction {
    static func describe(_ input: String) -> String {
        (try? MediaLocation(parsing: input))?.description ?? input
    }
}
