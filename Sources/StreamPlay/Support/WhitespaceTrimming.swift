extension StringProtocol {
    /// The text without leading and trailing whitespace (newlines included).
    ///
    /// Here rather than Foundation's `trimmingCharacters(in:)`: the library imports only
    /// FoundationEssentials, which keeps ICU and a third of the start-up time out of every
    /// program that links it.
    package func trimmingWhitespace() -> String {
        guard let first = firstIndex(where: { !$0.isWhitespace }),
              let last = lastIndex(where: { !$0.isWhitespace }) else { return "" }
        return String(self[first...last])
    }
}
