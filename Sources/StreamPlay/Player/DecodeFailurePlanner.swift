/// What the decoder thread makes of a decoder that failed, or that declared an end while input
/// goes on: fail the play with an error that names the track, or decode on after the damaged
/// stretch, as a listener expects of a stream with garbage in it. A pure decision, tested with
/// no decoder.
enum DecodeFailurePlanner {
    /// Damaged stretches survived in one track before the play fails.
    static let recoveryLimit = 16

    /// What to do.
    enum Verdict: Equatable, Sendable {
        /// The play fails with this error.
        case fail(PlayerError)
        /// Restart the decoder after the damage and decode on.
        case recover
        /// The input has ended, but the bytes the decoder was fed and did not decode hold more
        /// audio from this offset into them: restart the decoder there and feed it the rest.
        case decodeRest(from: Int)
    }

    /// What the decoder thread knows when the decoder fails.
    struct Facts: Equatable, Sendable {
        /// The decoder knows the audio's format: some audio was found.
        var formatKnown: Bool
        /// The decoder finds frames in a byte stream (libmpg123), so it can start again past
        /// damage; a container's demuxer (FFmpeg) cannot.
        var searchesForFrames: Bool
        /// Damaged stretches survived so far in this track.
        var recoveries: Int
        /// The track, as errors name it.
        var url: String
    }

    /// The decoder threw `error`. A format it cannot play or a DRM scheme fails the play
    /// naming the track; so does any error before audio was found (it is not audio). After
    /// that, a decoder that searches for frames recovers, ``recoveryLimit`` times at most.
    static func decoderFailed(_ error: PlayerError, facts: Facts) -> Verdict {
        if error.code == .unsupportedFormat { return .fail(.unsupportedFormat(url: facts.url, format: error.format ?? "")) }
        if error.code == .drmProtected { return .fail(.drmProtected(url: facts.url, scheme: error.format ?? "")) }
        if !facts.formatKnown { return .fail(.notAudio(url: facts.url, reason: "\(error)")) }
        guard facts.searchesForFrames, facts.recoveries < recoveryLimit else { return .fail(error) }
        return .recover
    }

    /// The decoder declared its stream finished. A decoder that searches for frames, while
    /// input goes on (the input has not ended, or bytes are still buffered), took what follows
    /// for another stream (a false header in garbage), or ended where a LAME tag's frame count
    /// ran out with more parts joined after it: it recovers, within the same limit. With the
    /// input ended, the same holds when the bytes fed but not decoded hold more audio (what
    /// ``ContentSniffer/audioStart(inRest:)`` finds). Past the limit the play fails
    /// (`decodingFailed`) rather than end with input unplayed. Returns `nil` when the end is
    /// the track's.
    /// - Parameters:
    ///   - inputGoesOn: read only for a decoder that searches for frames.
    ///   - restAudioStart: where audio starts in the bytes fed but not decoded, `nil` for none;
    ///     read only when the input does not go on.
    static func decoderFinished(searchesForFrames: Bool, recoveries: Int, url: @autoclosure () -> String,
                                inputGoesOn: @autoclosure () -> Bool,
                                restAudioStart: @autoclosure () -> Int? = nil) -> Verdict? {
        guard searchesForFrames else { return nil }
        let verdict: Verdict
        if inputGoesOn() {
            verdict = .recover
        } else if let start = restAudioStart() {
            verdict = .decodeRest(from: start)
        } else {
            return nil
        }
        guard recoveries < recoveryLimit else {
            return .fail(.decodingFailed(reason: "more than \(recoveryLimit) damaged stretches in \(url())"))
        }
        return verdict
    }
}
