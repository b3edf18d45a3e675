import Testing
@testable import StreamPlay

@Suite("Decode failures: fail the play or decode on past the damage")
struct DecodeFailurePlannerTests {
    static let url = "https://media.test/track.mp3"
    static let damage = PlayerError.decodingFailed(reason: "bad frame header")

    static func facts(formatKnown: Bool = true, searchesForFrames: Bool = true, recoveries: Int = 0)
        -> DecodeFailurePlanner.Facts {
        .init(formatKnown: formatKnown, searchesForFrames: searchesForFrames, recoveries: recoveries, url: url)
    }

    @Test("a format that cannot be played, or DRM, fails the play naming the track, even mid-stream")
    func unplayable() {
        let unsupported = PlayerError.unsupportedFormat(url: "", format: "MP4 (brand M4A)")
        #expect(DecodeFailurePlanner.decoderFailed(unsupported, facts: Self.facts())
                == .fail(.unsupportedFormat(url: Self.url, format: "MP4 (brand M4A)")))
        let drm = PlayerError.drmProtected(url: "", scheme: "cenc")
        #expect(DecodeFailurePlanner.decoderFailed(drm, facts: Self.facts(formatKnown: false))
                == .fail(.drmProtected(url: Self.url, scheme: "cenc")))
    }

    @Test("an error before any audio was found is notAudio, naming the track and the decoder's error")
    func beforeAudio() {
        let verdict = DecodeFailurePlanner.decoderFailed(Self.damage, facts: Self.facts(formatKnown: false))
        #expect(verdict == .fail(.notAudio(url: Self.url, reason: "\(Self.damage)")))
    }

    @Test("damage mid-stream is decoded past by a decoder that searches for frames, up to the limit")
    func recovers() {
        for recoveries in 0..<DecodeFailurePlanner.recoveryLimit {
            #expect(DecodeFailurePlanner.decoderFailed(Self.damage, facts: Self.facts(recoveries: recoveries)) == .recover)
        }
        let spent = Self.facts(recoveries: DecodeFailurePlanner.recoveryLimit)
        #expect(DecodeFailurePlanner.decoderFailed(Self.damage, facts: spent) == .fail(Self.damage))
    }

    @Test("a demuxer's error mid-stream fails the play with it: a container is not resynced")
    func demuxerFails() {
        #expect(DecodeFailurePlanner.decoderFailed(Self.damage, facts: Self.facts(searchesForFrames: false))
                == .fail(Self.damage))
    }

    @Test("an end declared while input goes on is recovered from, within the limit; at the input's end it is the track's")
    func falseEnd() {
        #expect(DecodeFailurePlanner.decoderFinished(inputGoesOn: true, facts: Self.facts()) == .recover)
        #expect(DecodeFailurePlanner.decoderFinished(inputGoesOn: false, facts: Self.facts()) == nil)
        #expect(DecodeFailurePlanner.decoderFinished(inputGoesOn: true, facts: Self.facts(searchesForFrames: false)) == nil)
        let spent = Self.facts(recoveries: DecodeFailurePlanner.recoveryLimit)
        #expect(DecodeFailurePlanner.decoderFinished(inputGoesOn: true, facts: spent) == nil)
    }
}
