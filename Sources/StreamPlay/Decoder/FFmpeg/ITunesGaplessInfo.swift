/// The gapless facts an iTunes-style encoder writes into an M4A's `iTunSMPB` comment (a
/// `----:com.apple.iTunes:iTunSMPB` atom), for players that do not read edit lists:
/// ` 00000000 00000840 000001CA 00000000003F31F6 …`, hexadecimal fields of which the second is
/// the encoder's priming, the third its padding and the fourth the original sample count.
///
/// FFmpeg's MP4 demuxer takes the priming from it (the first samples are skipped as for an edit
/// list) but not the length, so ``FFmpegDecoder`` ends the track at ``originalFrames``.
struct ITunesGaplessInfo: Equatable {
    /// Samples the encoder put in front of the signal.
    var priming: Int
    /// Samples the encoder added after the signal, to fill its last frame.
    var padding: Int
    /// The signal's length in samples (per channel): what the track decodes to.
    var originalFrames: Int

    /// The facts as given.
    init(priming: Int, padding: Int, originalFrames: Int) {
        self.priming = priming
        self.padding = padding
        self.originalFrames = originalFrames
    }

    /// Parses the comment's text; `nil` when it is not the iTunes layout or names no length.
    init?(_ text: String) {
        let fields = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\0" })
        guard fields.count >= 4, fields[1...3].allSatisfy({ $0.count <= 16 }),
              let priming = Int(fields[1], radix: 16), let padding = Int(fields[2], radix: 16),
              let frames = Int(fields[3], radix: 16), frames > 0 else { return nil }
        self.priming = priming
        self.padding = padding
        self.originalFrames = frames
    }
}
