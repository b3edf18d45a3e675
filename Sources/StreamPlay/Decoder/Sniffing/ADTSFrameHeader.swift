/// The seven- or nine-byte header of an ADTS frame (AAC in its own framing, as radio and
/// `.aac` files carry it).
struct ADTSFrameHeader: Equatable, Sendable {
    let profile: Int
    let sampleRateIndex: Int
    let channelConfiguration: Int
    let isMPEG2: Bool
    /// Bytes in the whole frame, header included.
    let frameLength: Int

    /// Parses the header at the start of `bytes`; `nil` when they are not a valid one.
    init?(_ bytes: UnsafeRawBufferPointer) {
        // Sync word, then layer 0: an MPEG audio header would have a non-zero layer.
        guard bytes.count >= 7, bytes[0] == 0xFF, bytes[1] & 0xF6 == 0xF0 else { return nil }
        isMPEG2 = bytes[1] & 0x08 != 0
        profile = Int(bytes[2] >> 6)
        sampleRateIndex = Int((bytes[2] >> 2) & 0x0F)
        channelConfiguration = Int((bytes[2] & 0x01) << 2 | bytes[3] >> 6)
        frameLength = Int(bytes[3] & 0x03) << 11 | Int(bytes[4]) << 3 | Int(bytes[5] >> 5)
        let headerLength = bytes[1] & 0x01 == 0 ? 9 : 7
        guard sampleRateIndex < 13, frameLength > headerLength else { return nil }
    }

    /// Whether `next` can follow this frame in one stream.
    func agrees(with next: ADTSFrameHeader) -> Bool {
        profile == next.profile && sampleRateIndex == next.sampleRateIndex
            && channelConfiguration == next.channelConfiguration && isMPEG2 == next.isMPEG2
    }
}
