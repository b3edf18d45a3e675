// Fuzz target: content sniffing (ID3v2 sizes, container signatures, MPEG and ADTS frame chains).
// Input: the first bytes of a stream. Each prefix is judged as the bytes arrive, then the whole
// as a complete input; a verdict, once given, must not change as more bytes come.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSniffer(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    var decided: ContentSniffer.Verdict?
    for end in stride(from: 0, through: size, by: 61) {
        let verdict = ContentSniffer.sniff(UnsafeRawBufferPointer(rebasing: bytes[..<end]), isComplete: false)
        if case .decided(let content) = verdict {
            if case .mpegAudio(let offset) = content { precondition(offset < end, "a frame past the bytes seen") }
            decided = decided ?? verdict
        }
        precondition(verdict != .unrecognised, "an incomplete input judged unrecognised")
    }
    let final = ContentSniffer.sniff(bytes, isComplete: true)
    precondition(final != .needMore, "a complete input left undecided")
    if let decided, case .decided(.mpegAudio) = decided {
        // Later bytes can only confirm frames already chained, never unmake them.
        if case .decided(.mpegAudio) = final {} else { preconditionFailure("MPEG audio unmade by more bytes") }
    }
    return 0
}
