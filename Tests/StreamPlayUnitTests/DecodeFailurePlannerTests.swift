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
        #expect(DecodeFailurePlanner.decoderFailed(PlayerError.unsupportedFormat(url: "", format: "Musepack"),
                                                   facts: Self.facts(formatKnown: false))
                == .fail(.unsupportedFormat(url: Self.url, format: "Musepack")))
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
        // A demuxer's too: not audio comes before whether the decoder could resync.
        let demuxer = DecodeFailurePlanner.decoderFailed(Self.damage, facts: Self.facts(formatKnown: false, searchesForFrames: false))
        #expect(demuxer == .fail(.notAudio(url: Self.url, reason: "\(Self.damage)")))
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

    static func finished(searchesForFrames: Bool = true, recoveries: Int = 0, inputGoesOn: Bool,
                         restAudioStart: Int? = nil) -> DecodeFailurePlanner.Verdict? {
        DecodeFailurePlanner.decoderFinished(searchesForFrames: searchesForFrames, recoveries: recoveries,
                                             url: Self.url, inputGoesOn: inputGoesOn, restAudioStart: restAudioStart)
    }

    @Test("at the input's end, audio in the bytes fed but not decoded is decoded, within the limit")
    func restHoldsAudio() {
        #expect(Self.finished(inputGoesOn: false, restAudioStart: 7) == .decodeRest(from: 7))
        #expect(Self.finished(recoveries: DecodeFailurePlanner.recoveryLimit - 1, inputGoesOn: false, restAudioStart: 0)
                == .decodeRest(from: 0))
        #expect(Self.finished(inputGoesOn: true, restAudioStart: 7) == .recover, "input to come is read again instead")
        #expect(Self.finished(searchesForFrames: false, inputGoesOn: false, restAudioStart: 7) == nil)
        let spent = Self.finished(recoveries: DecodeFailurePlanner.recoveryLimit, inputGoesOn: false, restAudioStart: 0)
        guard case .fail(let error)? = spent else {
            Issue.record("expected a failure past the limit, got \(String(describing: spent))")
            return
        }
        #expect(error.code == .decodingFailed, "audio left unplayed is not an end")
    }

    @Test("the rest is looked at only when the input has ended")
    func restReadOnlyAtTheEnd() {
        var looked = false
        let verdict = DecodeFailurePlanner.decoderFinished(searchesForFrames: true, recoveries: 0, url: Self.url,
                                                           inputGoesOn: true, restAudioStart: { looked = true; return 0 }())
        #expect(verdict == .recover)
        #expect(!looked)
    }

    @Test("an end declared while input goes on is recovered from, within the limit; at the input's end it is the track's")
    func falseEnd() {
        #expect(Self.finished(inputGoesOn: true) == .recover)
        #expect(Self.finished(recoveries: DecodeFailurePlanner.recoveryLimit - 1, inputGoesOn: true) == .recover)
        #expect(Self.finished(inputGoesOn: false) == nil)
        #expect(Self.finished(recoveries: DecodeFailurePlanner.recoveryLimit, inputGoesOn: false) == nil)
        #expect(Self.finished(searchesForFrames: false, inputGoesOn: true) == nil)
    }

    @Test("a false end past the limit fails the play with decodingFailed: the input it leaves is not called played")
    func falseEndPastTheLimit() {
        let verdict = Self.finished(recoveries: DecodeFailurePlanner.recoveryLimit, inputGoesOn: true)
        guard case .fail(let error)? = verdict else {
            Issue.record("expected a failure, got \(String(describing: verdict))")
            return
        }
        #expect(error.code == .decodingFailed)
        #expect(error.description.contains(Self.url), "\(error)")
    }

    @Test("a demuxer's end is the track's without the input being looked at")
    func demuxerEndReadsNoInput() {
        var looked = false
        let verdict = DecodeFailurePlanner.decoderFinished(searchesForFrames: false, recoveries: 0, url: Self.url,
                                                           inputGoesOn: { looked = true; return true }())
        #expect(verdict == nil)
        #expect(!looked)
    }
}
