import Testing
@testable import StreamPlay

@Suite("The first bytes: wait, get past a tag, pick the decoder, or refuse them")
struct FirstBytesPlannerTests {
    /// The track the errors name.
    static let url = "https://media.test/track"

    /// The planner's step for `verdict` on `held` bytes.
    static func step(_ verdict: ContentSniffer.Verdict, held: Int = 4096, ended: Bool = false) -> FirstBytesPlanner.Step {
        FirstBytesPlanner.step(for: verdict, held: held, inputEnded: ended, url: url)
    }

    @Test("too few bytes to tell: wait while more can come; once the input ended, not audio")
    func needMore() {
        #expect(Self.step(.needMore) == .waitForMore)
        #expect(Self.step(.needMore, held: 12, ended: true)
                == .fail(.notAudio(url: Self.url, reason: "no MPEG audio frames and no known container in the first 12 bytes")))
    }

    @Test("an ID3v2 tag is waited for whole when it may hold a picture kept, else passed at once")
    func tag() {
        #expect(Self.step(.decided(.id3v2Tag(size: 300_000))) == .waitForMore)
        #expect(Self.step(.decided(.id3v2Tag(size: 300_000)), held: 300_000) == .passTag(size: 300_000))
        #expect(Self.step(.decided(.id3v2Tag(size: 300_000)), ended: true) == .passTag(size: 300_000))
        #expect(Self.step(.decided(.id3v2Tag(size: Artwork.maximumSize + 1))) == .passTag(size: Artwork.maximumSize + 1))
    }

    @Test("MPEG audio goes to mpg123, every other container to FFmpeg")
    func decoders() {
        #expect(Self.step(.decided(.mpegAudio(offset: 0))) == .decodeAsMPEG)
        #expect(Self.step(.decided(.mpegAudio(offset: 417)), ended: true) == .decodeAsMPEG)
        #expect(Self.step(.decided(.foreign(.adts))) == .decodeWithFFmpeg(.adts))
        #expect(Self.step(.decided(.foreign(.mp4(brand: "M4A ")))) == .decodeWithFFmpeg(.mp4(brand: "M4A ")))
    }

    @Test("text, and bytes nothing recognises, fail as notAudio naming the track and what was there")
    func refused() {
        #expect(Self.step(.decided(.text("<!DOCTYPE html")))
                == .fail(.notAudio(url: Self.url, reason: "the content is text (<!DOCTYPE html…), not audio")))
        #expect(Self.step(.unrecognised, held: 65536)
                == .fail(.notAudio(url: Self.url, reason: "no MPEG audio frames and no known container in the first 65536 bytes")))
    }
}
