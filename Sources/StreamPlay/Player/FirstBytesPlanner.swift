/// What the decoder thread makes of the input's first bytes, once ``ContentSniffer`` has looked
/// at them: wait for more, get past an ID3v2 tag in front (``LeadingTagPlanner``), decode them
/// as MPEG audio or through FFmpeg, or fail the play with an error that names the track and
/// what the bytes were. A pure decision, tested with no input.
enum FirstBytesPlanner {
    /// The next step with the bytes held.
    enum Step: Equatable, Sendable {
        /// Hold the bytes and wait for more.
        case waitForMore
        /// An ID3v2 tag of `size` bytes (header included) is held whole, or as much of it as
        /// is read: read its names and get past it.
        case passTag(size: Int)
        /// MPEG audio: feed the bytes held to mpg123.
        case decodeAsMPEG
        /// Another container: open FFmpeg's demuxer for it and feed it the bytes held.
        case decodeWithFFmpeg(MediaSignature)
        /// The play fails.
        case fail(PlayerError)
    }

    /// The step for `verdict`, the sniffer's on the `held` bytes.
    /// - Parameters:
    ///   - verdict: what ``ContentSniffer`` made of the bytes held.
    ///   - held: how many bytes are held, from the input's first (or from a tag's end).
    ///   - inputEnded: the input has ended and nothing more will come.
    ///   - url: the track, as errors name it.
    static func step(for verdict: ContentSniffer.Verdict, held: Int, inputEnded: Bool,
                     url: @autoclosure () -> String) -> Step {
        switch verdict {
        case .needMore where !inputEnded:
            return .waitForMore
        case .decided(.id3v2Tag(let size)):
            return LeadingTagPlanner.waitsForWholeTag(tagSize: size, held: held, inputEnded: inputEnded)
                ? .waitForMore : .passTag(size: size)
        case .decided(.mpegAudio):
            return .decodeAsMPEG
        case .decided(.foreign(let signature)):
            return .decodeWithFFmpeg(signature)
        case .decided(.text(let marker)):
            return .fail(.notAudio(url: url(), reason: "the content is text (\(marker)…), not audio"))
        case .needMore, .unrecognised:
            return .fail(.notAudio(url: url(), reason: "no MPEG audio frames and no known container in the first \(held) bytes"))
        }
    }
}
