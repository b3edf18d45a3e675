/// Separates Shoutcast/Icecast in-band metadata from the audio of an ICY stream.
///
/// With `Icy-MetaData: 1` a radio server inserts, after every `icy-metaint` audio bytes, one
/// length byte (×16) and that many bytes of text such as `StreamTitle='…';StreamUrl='…';`.
/// The bytes come straight from the network, so nothing here trusts them: lengths are bounded
/// by the format (at most 4080 bytes) and text is decoded leniently.
struct ICYDemuxer {
    /// Audio bytes between two metadata blocks.
    let interval: Int
    private var audioLeft: Int
    /// Metadata bytes still to come in the current block, or `nil` while in audio.
    private var metadataLeft: Int?
    private var metadata: [UInt8] = []

    init(interval: Int) {
        precondition(interval > 0)
        self.interval = interval
        audioLeft = interval
    }

    /// Splits `input`: audio is copied to `audio` (which must hold `input.count` bytes), each
    /// complete non-empty metadata block is passed to `onMetadata`.
    /// - Returns: the number of audio bytes written to `audio`.
    mutating func process(_ input: UnsafeRawBufferPointer, audio: UnsafeMutableRawBufferPointer,
                          onMetadata: (StreamMetadata) -> Void) -> Int {
        var index = 0
        var written = 0
        while index < input.count {
            if let left = metadataLeft {
                let take = min(left, input.count - index)
                metadata.append(contentsOf: input[index..<(index + take)])
                index += take
                metadataLeft = left - take
                if metadataLeft == 0 {
                    metadataLeft = nil
                    audioLeft = interval
                    if let parsed = StreamMetadata(icyBlock: metadata) { onMetadata(parsed) }
                    metadata.removeAll(keepingCapacity: true)
                }
            } else if audioLeft == 0 {
                let length = Int(input[index]) * 16
                index += 1
                if length == 0 {
                    audioLeft = interval
                } else {
                    metadataLeft = length
                }
            } else {
                let take = min(audioLeft, input.count - index)
                UnsafeMutableRawBufferPointer(rebasing: audio[written..<(written + take)])
                    .copyMemory(from: UnsafeRawBufferPointer(rebasing: input[index..<(index + take)]))
                written += take
                index += take
                audioLeft -= take
            }
        }
        return written
    }
}
