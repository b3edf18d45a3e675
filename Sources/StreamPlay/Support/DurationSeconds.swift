extension Duration {
    /// This duration in seconds, as a `Double` (for rates and statistics).
    package var inSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
