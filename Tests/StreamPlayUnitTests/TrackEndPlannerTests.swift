import Testing
@testable import StreamPlay

@Suite("Track end planning (input end, nearing end)")
struct TrackEndPlannerTests {
    static let url = "http://127.0.0.1/track.mp3"

    /// Facts of an input that ended with its audio decoded and queued.
    static func facts(bytesInRing: Int = 0, held: Bool = false, formatKnown: Bool = true,
                      bytesFed: Int = 4096, audioQueued: Bool = true) -> TrackEndPlanner.Facts {
        .init(bytesInRing: bytesInRing, bytesHeldForSniffing: held, formatKnown: formatKnown,
              bytesFed: bytesFed, audioQueued: audioQueued, url: url)
    }

    @Test("a finished input is decoded to its last byte, sniffer's bytes included, then drained")
    func finished() {
        #expect(TrackEndPlanner.inputEnded(.finished, facts: Self.facts(bytesInRing: 1)) == .decodeRest)
        #expect(TrackEndPlanner.inputEnded(.finished, facts: Self.facts(held: true, formatKnown: false)) == .decodeRest)
        #expect(TrackEndPlanner.inputEnded(.finished, facts: Self.facts()) == .drain)
    }

    @Test("a finished input without audio is empty or not audio, by whether bytes were fed")
    func finishedWithoutAudio() {
        #expect(TrackEndPlanner.inputEnded(.finished, facts: Self.facts(formatKnown: false, bytesFed: 0, audioQueued: false))
                == .fail(.emptyStream(url: Self.url)))
        let verdict = TrackEndPlanner.inputEnded(.finished, facts: Self.facts(formatKnown: false, bytesFed: 10, audioQueued: false))
        guard case .fail(let error) = verdict else {
            Issue.record("expected a failure, got \(verdict)")
            return
        }
        #expect(error.code == .notAudio)
    }

    @Test("a failed input plays out what was decoded before the failure is reported")
    func failed() {
        let error = PlayerError.emptyStream(url: Self.url)
        #expect(TrackEndPlanner.inputEnded(.failed(error), facts: Self.facts(bytesInRing: 5)) == .decodeRest)
        #expect(TrackEndPlanner.inputEnded(.failed(error), facts: Self.facts()) == .drainThenFail(error))
        #expect(TrackEndPlanner.inputEnded(.failed(error), facts: Self.facts(audioQueued: false)) == .fail(error),
                "nothing queued: nothing to play out")
        #expect(TrackEndPlanner.inputEnded(.failed(error), facts: Self.facts(held: true, formatKnown: false)) == .fail(error),
                "bytes held for the sniffer do not hold off a failure")
    }

    @Test("the decoder's end drains once the format is known, and is not audio before")
    func decoderFinished() {
        #expect(TrackEndPlanner.decoderFinished(formatKnown: true, url: Self.url) == .drain)
        #expect(TrackEndPlanner.decoderFinished(formatKnown: false, url: Self.url) != .drain)
    }

    @Test("the next track is opened when less than the lead is left, by length or by unread bytes")
    func nearingEnd() {
        let lead = TrackEndPlanner.preloadLead
        #expect(!TrackEndPlanner.isNearingEnd(secondsToLength: nil, bytesLeft: nil, bytesPerSecond: 16_000),
                "an input under way with no length is never near its end")
        #expect(TrackEndPlanner.isNearingEnd(secondsToLength: lead - 0.1, bytesLeft: nil, bytesPerSecond: nil))
        #expect(!TrackEndPlanner.isNearingEnd(secondsToLength: lead, bytesLeft: nil, bytesPerSecond: nil))
        let bytesForLead = Int(lead * 16_000)
        #expect(TrackEndPlanner.isNearingEnd(secondsToLength: nil, bytesLeft: bytesForLead - 16, bytesPerSecond: 16_000))
        #expect(!TrackEndPlanner.isNearingEnd(secondsToLength: nil, bytesLeft: bytesForLead, bytesPerSecond: 16_000))
        #expect(!TrackEndPlanner.isNearingEnd(secondsToLength: nil, bytesLeft: 0, bytesPerSecond: 0),
                "an unknown bitrate tells nothing")
        #expect(TrackEndPlanner.isNearingEnd(secondsToLength: 100, bytesLeft: 0, bytesPerSecond: 16_000),
                "the sooner of the two counts")
    }
}
