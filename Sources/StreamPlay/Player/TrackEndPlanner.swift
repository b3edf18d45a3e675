/// What the end of a track's input means, and when the end of the track is near: decisions the
/// decoder thread takes from facts it has gathered, with no decoder, ring or sink at hand.
enum TrackEndPlanner {
    /// How the input ended (``InputOutcome`` without its generation).
    enum InputEnd: Sendable, Equatable {
        case finished
        case failed(PlayerError)
    }

    /// What the decoder thread knows when the input has ended and the decoder wants more.
    struct Facts: Sendable, Equatable {
        /// Bytes of this generation still in the ring.
        var bytesInRing: Int
        /// Whether bytes are still held for the content sniffer.
        var bytesHeldForSniffing: Bool
        /// Whether the decoder found the audio's format.
        var formatKnown: Bool
        /// Bytes handed to the decoder so far.
        var bytesFed: Int
        /// Whether any decoded audio was queued in the sink (or output started).
        var audioQueued: Bool
        /// The location, for errors.
        var url: String
    }

    /// What follows the end of the input.
    enum Verdict: Sendable, Equatable {
        /// Bytes are still to be decoded (or judged by the sniffer): go on.
        case decodeRest
        /// Play out what is queued; the track ends there.
        case drain
        /// Play out what was decoded, then report the failure (as a player would).
        case drainThenFail(PlayerError)
        /// Nothing to play: fail now.
        case fail(PlayerError)
    }

    /// The input ended and the decoder asked for more.
    static func inputEnded(_ end: InputEnd, facts: Facts) -> Verdict {
        switch end {
        case .finished:
            // Bytes still held for the sniffer are judged (as a complete input) first.
            if facts.bytesInRing > 0 || facts.bytesHeldForSniffing { return .decodeRest }
            guard facts.formatKnown else {
                return .fail(facts.bytesFed == 0
                             ? .emptyStream(url: facts.url)
                             : .notAudio(url: facts.url, reason: "no audio frame found"))
            }
            return .drain
        case .failed(let error):
            if facts.bytesInRing > 0 { return .decodeRest }
            return facts.formatKnown && facts.audioQueued ? .drainThenFail(error) : .fail(error)
        }
    }

    /// The decoder declared the end of the stream.
    static func decoderFinished(formatKnown: Bool, url: String) -> Verdict {
        formatKnown ? .drain : .fail(.notAudio(url: url, reason: "the stream ended before its first audio frame"))
    }

    /// Audio left in the current track when the next one is opened: time enough to connect and
    /// decode its first audio on a slow link, little enough not to hold two streams for long.
    static let preloadLead = 8.0

    /// Whether the end is near enough to open the next track: less than ``preloadLead`` of
    /// audio is left before the requested length, or in a complete input's unread bytes.
    /// - Parameters:
    ///   - secondsToLength: audio left before the requested length ends the track, if one was.
    ///   - bytesLeft: input bytes not decoded yet, once the input is complete (`nil` before).
    ///   - bytesPerSecond: the stream's bitrate in bytes, when the decoder knows it.
    static func isNearingEnd(secondsToLength: Double?, bytesLeft: Int?, bytesPerSecond: Int?) -> Bool {
        var left = secondsToLength ?? .infinity
        if let bytesLeft, let bytesPerSecond, bytesPerSecond > 0 {
            left = min(left, Double(bytesLeft) / Double(bytesPerSecond))
        }
        return left < preloadLead
    }
}
