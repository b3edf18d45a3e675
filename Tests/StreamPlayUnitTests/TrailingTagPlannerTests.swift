import Testing
@testable import StreamPlay

@Suite("Trailing tag planner (whether and where an ID3v1 tag is read)")
struct TrailingTagPlannerTests {
    static let partial = StreamMetadata(title: "Sweep", artist: nil, album: nil, trackNumber: nil)
    static let complete = StreamMetadata(title: "Sweep", artist: "Tester", album: "Tones", trackNumber: 3)
    static let url = "http://127.0.0.1/sweep.mp3"

    @Test("an MP3 with a name missing: a file's end is read, a remote one's by a Range request")
    func looked() {
        #expect(TrailingTagPlanner.plan(names: Self.partial, isMPEGAudio: true, location: .file("/m/sweep.mp3"),
                                        rangeLength: nil) == .file(path: "/m/sweep.mp3"))
        #expect(TrailingTagPlanner.plan(names: Self.partial, isMPEGAudio: true, location: .remote(Self.url),
                                        rangeLength: 96_000) == .range(url: Self.url, totalLength: 96_000))
        #expect(TrailingTagPlanner.plan(names: StreamMetadata(title: nil), isMPEGAudio: true,
                                        location: .remote(Self.url), rangeLength: 128)
                == .range(url: Self.url, totalLength: 128), "just room for the tag")
    }

    @Test("not looked for: every name known, not MPEG audio, an HLS stream, no Range requests, too short")
    func notLooked() {
        #expect(TrailingTagPlanner.plan(names: Self.complete, isMPEGAudio: true, location: .file("/m/a.mp3"),
                                        rangeLength: nil) == .none)
        #expect(TrailingTagPlanner.plan(names: Self.partial, isMPEGAudio: false, location: .file("/m/a.flac"),
                                        rangeLength: nil) == .none)
        #expect(TrailingTagPlanner.plan(names: Self.partial, isMPEGAudio: true, location: nil, rangeLength: 96_000) == .none)
        #expect(TrailingTagPlanner.plan(names: Self.partial, isMPEGAudio: true, location: .remote(Self.url),
                                        rangeLength: nil) == .none)
        #expect(TrailingTagPlanner.plan(names: Self.partial, isMPEGAudio: true, location: .remote(Self.url),
                                        rangeLength: 127) == .none)
    }
}
