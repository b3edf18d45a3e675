extension Array where Element == UInt8 {
    /// `withUnsafeBytes` for a body that throws ``PlayerError``: the standard one rethrows an
    /// untyped error, which typed-throwing callers cannot pass on.
    func withPlayerBytes<Result>(
        _ body: (UnsafeRawBufferPointer) throws(PlayerError) -> Result
    ) throws(PlayerError) -> Result {
        var outcome: Swift.Result<Result, PlayerError>?
        withUnsafeBytes { bytes in
            outcome = Swift.Result { () throws(PlayerError) -> Result in try body(bytes) }
        }
        return try outcome!.get()
    }
}
