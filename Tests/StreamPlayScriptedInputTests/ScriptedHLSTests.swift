import StreamPlay
import StreamPlayTesting
import Synchronization
import Testing

/// HLS streams and radio playlists through a `Player` whose every request for media goes to a
/// `ScriptedMediaServer`: the playlists, the segments and their recovery, with no network. The
/// segment's stall timeout and a playlist's time limit run on a `ManualClock`.
@Suite("Scripted input: HLS and playlists", .timeLimit(.minutes(1)))
struct ScriptedHLSTests {
    static let playlistURL = "https://media.test/hls/index.m3u8"
    static let track = ScriptedPlay.track

    /// The track cut into `count` segments at arbitrary bytes (not frame boundaries: the
    /// segments still make one stream when joined), each served at `hls/segN.mp3` with `query`.
    static func segments(_ count: Int = 4) -> [ArraySlice<UInt8>] {
        let size = (track.count + count - 1) / count
        return stride(from: 0, to: track.count, by: size).map { track[$0..<min($0 + size, track.count)] }
    }

    /// A VOD media playlist naming `names` (relative to the playlist), five seconds each.
    static func mediaPlaylist(_ names: [String], live: Bool = false, firstSequence: Int = 0) -> [UInt8] {
        var text = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:5\n#EXT-X-MEDIA-SEQUENCE:\(firstSequence)\n"
        for name in names { text += "#EXTINF:5.0,\n\(name)\n" }
        if !live { text += "#EXT-X-ENDLIST\n" }
        return Array(text.utf8)
    }

    /// A server with the track's HLS stream: the playlist and each segment, signed with `query`.
    static func hlsServer(query: String = "") -> ScriptedMediaServer {
        let server = ScriptedMediaServer()
        serveHLS(on: server, query: query, playlistURL: playlistURL + query)
        return server
    }

    static func serveHLS(on server: ScriptedMediaServer, query: String = "", playlistURL: String = playlistURL) {
        let names = segments().indices.map { "seg\($0).mp3\(query)" }
        server.serve(mediaPlaylist(names), at: playlistURL, contentType: "application/vnd.apple.mpegurl")
        for (index, segment) in segments().enumerated() {
            server.serve(Array(segment), at: segmentURL(index, query: query))
        }
    }

    static func segmentURL(_ index: Int, query: String = "") -> String {
        "https://media.test/hls/seg\(index).mp3\(query)"
    }

    /// The segments' requests, in order, as (URL, first byte asked for).
    static func segmentRequests(_ server: ScriptedMediaServer) -> [String] {
        server.requests.filter { $0.url.contains("/seg") }.map { request in
            let name = request.url.split(separator: "/").last.map(String.init) ?? request.url
            return request.rangeStart.map { "\(name)@\($0)" } ?? name
        }
    }

    /// The HLS stream played with no fault: what every faulty play must equal.
    static func reference() async throws -> ScriptedPlay {
        try await ScriptedPlay.play(hlsServer(), url: playlistURL)
    }

    @Test("an HLS stream plays its segments in order as one stream: the progressive play's samples, whole")
    func playsAsOneStream() async throws {
        let server = Self.hlsServer()
        let play = try await ScriptedPlay.play(server, url: Self.playlistURL)
        #expect(play.state.hasEnded, "\(play.state)")
        #expect(server.requests(to: Self.playlistURL).count == 1)
        #expect(Self.segmentRequests(server) == (0..<4).map { "seg\($0).mp3" })
        // The segments' filter drops the LAME header frame (each segment of a real stream may
        // carry one), so the HLS play keeps the encoder's delay and padding that the
        // progressive play trims: the progressive samples lie within, contiguous.
        let progressive = try await ScriptedPlay.reference()
        try #require(play.samples.count >= progressive.samples.count, "\(play.samples.count) samples")
        let head = Array(progressive.samples.prefix(256))
        let offset = (0...max(play.samples.count - progressive.samples.count, 0)).first {
            play.samples[$0..<($0 + head.count)].elementsEqual(head)
        }
        let start = try #require(offset, "the progressive play's first samples are not in the HLS play")
        #expect(start <= 2_500, "\(start) samples before the track's first")
        #expect(play.samples[start..<(start + progressive.samples.count)].elementsEqual(progressive.samples))
    }

    @Test("byte-range segments of one resource are asked for as ranges, and play as the whole resource")
    func byteRangeSegments() async throws {
        let server = ScriptedMediaServer()
        let resource = "https://media.test/hls/all.mp3"
        server.serve(Self.track, at: resource)
        var text = "#EXTM3U\n#EXT-X-VERSION:4\n#EXT-X-TARGETDURATION:5\n#EXT-X-MEDIA-SEQUENCE:0\n"
        var ranges: [ClosedRange<Int>] = []
        for segment in Self.segments() {
            text += "#EXTINF:5.0,\n#EXT-X-BYTERANGE:\(segment.count)@\(segment.startIndex)\nall.mp3\n"
            ranges.append(segment.startIndex...(segment.endIndex - 1))
        }
        text += "#EXT-X-ENDLIST\n"
        server.serve(Array(text.utf8), at: Self.playlistURL, contentType: "application/vnd.apple.mpegurl")
        let play = try await ScriptedPlay.play(server, url: Self.playlistURL)
        #expect(play.state.hasEnded, "\(play.state)")
        let asked = server.requests(to: resource).map { ($0.rangeStart ?? -1)...($0.rangeEnd ?? -1) }
        #expect(asked == ranges)
        #expect(SampleDifference.between(play.samples, (try await Self.reference()).samples) == nil)
    }

    /// A stream kept in one file, as `ffmpeg -hls_flags single_file` packs fragmented MP4:
    /// EXT-X-MAP names the file's first bytes, each segment a range after them. Here the file is
    /// the MP3 track, so the init section and the segments joined are the track again.
    static func singleFileServer(mapAttributes: (ClosedRange<Int>) -> String) -> (ScriptedMediaServer, ClosedRange<Int>, [ClosedRange<Int>]) {
        let server = ScriptedMediaServer()
        server.serve(track, at: "https://media.test/hls/all.mp3")
        let initialization = 0...999
        var text = "#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:5\n#EXT-X-MAP:\(mapAttributes(initialization))\n"
        var ranges: [ClosedRange<Int>] = []
        let size = (track.count - 1000 + 3) / 4
        for start in stride(from: 1000, to: track.count, by: size) {
            let range = start...(min(start + size, track.count) - 1)
            text += "#EXTINF:5.0,\n#EXT-X-BYTERANGE:\(range.count)@\(range.lowerBound)\nall.mp3\n"
            ranges.append(range)
        }
        text += "#EXT-X-ENDLIST\n"
        server.serve(Array(text.utf8), at: playlistURL, contentType: "application/vnd.apple.mpegurl")
        return (server, initialization, ranges)
    }

    @Test("an EXT-X-MAP with a BYTERANGE is asked for as that range and put in front of the first segment",
          arguments: ["URI=\"all.mp3\",BYTERANGE=\"1000@0\"", "URI=\"all.mp3\",BYTERANGE=1000"])
    func initializationMapByteRange(attributes: String) async throws {
        let (server, initialization, ranges) = Self.singleFileServer { _ in attributes }
        let play = try await ScriptedPlay.play(server, url: Self.playlistURL)
        #expect(play.state.hasEnded, "\(play.state)")
        let asked = server.requests(to: "https://media.test/hls/all.mp3").map { ($0.rangeStart ?? -1)...($0.rangeEnd ?? -1) }
        // The init section first, then every segment's range, each once.
        #expect(asked == [initialization] + ranges)
        // The init section and the segments make the track's bytes in order: its progressive
        // play, sample for sample (the header filter leaves the init section alone).
        #expect(SampleDifference.between(play.samples, (try await ScriptedPlay.reference()).samples) == nil)
    }

    @Test("an init section's Range ignored by the server is cut out of the whole body")
    func initializationMapRangeIgnored() async throws {
        let (server, initialization, _) = Self.singleFileServer { "URI=\"all.mp3\",BYTERANGE=\"\($0.count)@\($0.lowerBound)\"" }
        server.script("https://media.test/hls/all.mp3", .ignoringRange)
        let play = try await ScriptedPlay.play(server, url: Self.playlistURL)
        #expect(play.state.hasEnded, "\(play.state)")
        #expect(server.requests(to: "https://media.test/hls/all.mp3").first?.rangeEnd == initialization.upperBound)
        #expect(SampleDifference.between(play.samples, (try await ScriptedPlay.reference()).samples) == nil)
    }

    @Test("an init section past the end of a whole body sent for its Range fails the play, naming where the body ended",
          arguments: [0, Int.max - 1000 - ScriptedPlay.track.count])
    func initializationMapPastTheEnd(beyond: Int) async throws {
        let end = Self.track.count + beyond
        let (server, _, _) = Self.singleFileServer { _ in "URI=\"all.mp3\",BYTERANGE=\"1000@\(end)\"" }
        server.script("https://media.test/hls/all.mp3", .ignoringRange)
        let play = try await ScriptedPlay.play(server, url: Self.playlistURL)
        guard case .failed(let error) = play.state else {
            Issue.record("played with an init section the server never sent: \(play.state)")
            return
        }
        #expect("\(error)".contains("ended at byte \(Self.track.count), before bytes \(end)-\(end + 999)"), "\(error)")
        #expect(play.samples.isEmpty, "\(play.samples.count) samples played")
    }

    @Test("a segment whose connection breaks is resumed at the byte it stopped at: no sample lost or repeated")
    func brokenSegmentResumes() async throws {
        let reference = try await Self.reference()
        let server = Self.hlsServer()
        server.script(Self.segmentURL(1), .cut(atByte: 7_000))
        let play = try await ScriptedPlay.play(server, url: Self.playlistURL)
        #expect(play.state.hasEnded, "\(play.state)")
        #expect(Self.segmentRequests(server) == ["seg0.mp3", "seg1.mp3", "seg1.mp3@7000", "seg2.mp3", "seg3.mp3"])
        #expect(SampleDifference.between(play.samples, reference.samples) == nil)
    }

    @Test("a stalled segment is given up only once the manual clock passes the stall timeout, then resumed")
    func stalledSegmentFollowsTheClock() async throws {
        let reference = try await Self.reference()
        let clock = ManualClock()
        let server = Self.hlsServer()
        server.script(Self.segmentURL(2), .stall(atByte: 3_000))
        let running = ScriptedPlay.start(server, url: Self.playlistURL, configure: {
            $0.clock = clock
            $0.stallTimeout = 10
            $0.reconnect.initialDelay = 0.5
        })
        try #require(await eventually { server.stalledTransfers == 1 })
        // The last byte before the stall came at 0 s on the clock: the input sleeps until
        // 10 s after it, gives up then, and not a moment before.
        #expect(await clock.waitForSleeper { $0 == .seconds(10) }, "\(clock.sleepingDeadlines)")
        clock.advance(by: .seconds(10) - .milliseconds(1))
        try await Task.sleep(for: .milliseconds(100))
        #expect(Self.segmentRequests(server).count == 3, "resumed before the stall timeout")
        clock.advance(by: .milliseconds(1))
        // The retry waits the backoff's first delay, on the clock too.
        let retryAt = clock.now + .milliseconds(500)
        #expect(await clock.waitForSleeper { $0 == retryAt }, "\(clock.sleepingDeadlines), now \(clock.now)")
        #expect(Self.segmentRequests(server).count == 3)
        clock.advance(by: .milliseconds(500))
        let play = try await running.finish()
        #expect(play.state.hasEnded, "\(play.state)")
        #expect(Self.segmentRequests(server) == ["seg0.mp3", "seg1.mp3", "seg2.mp3", "seg2.mp3@3000", "seg3.mp3"])
        #expect(SampleDifference.between(play.samples, reference.samples) == nil)
    }

    @Test("a segment refused as expired (403) renews the playlist's URL and goes on from the fresh playlist")
    func expiredSegmentRenewsTheURL() async throws {
        let reference = try await Self.reference()
        let server = Self.hlsServer(query: "?sig=old")
        let freshPlaylist = "https://media.test/hls/index.m3u8?sig=new"
        Self.serveHLS(on: server, query: "?sig=new", playlistURL: freshPlaylist)
        server.script(Self.segmentURL(2, query: "?sig=old"), .status(403))
        let renewals = Mutex<[String]>([])
        let play = try await ScriptedPlay.play(server, url: Self.playlistURL + "?sig=old", urlRefresher: { expired in
            renewals.withLock { $0.append(expired) }
            return freshPlaylist
        })
        #expect(play.state.hasEnded, "\(play.state)")
        #expect(renewals.withLock { $0 } == [Self.playlistURL + "?sig=old"])
        #expect(server.requests(to: freshPlaylist).count == 1)
        #expect(Self.segmentRequests(server) == ["seg0.mp3?sig=old", "seg1.mp3?sig=old", "seg2.mp3?sig=old",
                                                 "seg2.mp3?sig=new", "seg3.mp3?sig=new"])
        #expect(SampleDifference.between(play.samples, reference.samples) == nil)
    }

    @Test("a playlist that never answers fails with timedOut once the manual clock passes its time limit")
    func silentPlaylistTimesOutOnTheClock() async throws {
        let clock = ManualClock()
        let server = ScriptedMediaServer()
        server.serve(Self.mediaPlaylist(["seg0.mp3"]), at: Self.playlistURL)
        server.script(Self.playlistURL, .stall(atByte: 0))
        let running = ScriptedPlay.start(server, url: Self.playlistURL, configure: {
            $0.clock = clock
            $0.connectTimeout = 2
            $0.stallTimeout = 3
        })
        try #require(await eventually { server.stalledTransfers == 1 })
        // The request's limit is the connect and stall timeouts together, from its start: the
        // reader sleeps until that very instant.
        #expect(await clock.waitForSleeper { $0 == .seconds(5) }, "\(clock.sleepingDeadlines)")
        clock.advance(by: .seconds(5) - .milliseconds(1))
        try await Task.sleep(for: .milliseconds(100))
        #expect(!isFailed(running.player.state), "failed before the time limit")
        clock.advance(by: .milliseconds(1))
        let play = try await running.finish()
        #expect(play.state == .failed(.timedOut(url: Self.playlistURL, seconds: 5)), "\(play.state)")
    }

    @Test("a live playlist is reloaded at its target duration on the clock, and its new segments play")
    func livePlaylistReloadsOnTheClock() async throws {
        let clock = ManualClock()
        let server = ScriptedMediaServer()
        let segments = Self.segments()
        for (index, segment) in segments.enumerated() { server.serve(Array(segment), at: Self.segmentURL(index)) }
        // Live, with the first two segments: a player starts three segments from the end, so
        // at the first here.
        server.serve(Self.mediaPlaylist(["seg0.mp3", "seg1.mp3"], live: true), at: Self.playlistURL)
        let running = ScriptedPlay.start(server, url: Self.playlistURL, configure: { $0.clock = clock })
        try #require(await eventually { Self.segmentRequests(server).count == 2 })
        // At the edge: the next reload is due one target duration after the first read, and
        // not before (the input looks at the clock at least every half second meanwhile).
        server.serve(Self.mediaPlaylist((0..<4).map { "seg\($0).mp3" }), at: Self.playlistURL)
        for _ in 0..<10 {
            try #require(await clock.waitForSleeper())
            #expect(server.requests(to: Self.playlistURL).count == 1, "reloaded early, at \(clock.now)")
            clock.advance(by: .milliseconds(500))
        }
        let play = try await running.finish()
        #expect(play.state.hasEnded, "\(play.state)")
        #expect(server.requests(to: Self.playlistURL).count == 2)
        #expect(Self.segmentRequests(server) == (0..<4).map { "seg\($0).mp3" })
        #expect(SampleDifference.between(play.samples, (try await Self.reference()).samples) == nil)
    }

    @Test("a live playlist whose target duration is 0 is reloaded no faster than the minimum interval")
    func zeroTargetDurationReloadsAtTheMinimum() async throws {
        let clock = ManualClock()
        let server = ScriptedMediaServer()
        let segments = Self.segments()
        for (index, segment) in segments.enumerated() { server.serve(Array(segment), at: Self.segmentURL(index)) }
        func playlist(_ names: [String], live: Bool) -> [UInt8] {
            var text = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:0\n#EXT-X-MEDIA-SEQUENCE:0\n"
            for name in names { text += "#EXTINF:5.0,\n\(name)\n" }
            return Array((text + (live ? "" : "#EXT-X-ENDLIST\n")).utf8)
        }
        server.serve(playlist(["seg0.mp3", "seg1.mp3"], live: true), at: Self.playlistURL)
        let running = ScriptedPlay.start(server, url: Self.playlistURL, configure: { $0.clock = clock })
        try #require(await eventually { Self.segmentRequests(server).count == 2 })
        // At the edge with the clock standing still: the reload after the first read waits for
        // the minimum interval, not for a target of 0 (which would reload back to back).
        try #require(await clock.waitForSleeper())
        try await Task.sleep(for: .milliseconds(200))
        #expect(server.requests(to: Self.playlistURL).count == 1, "reloaded with the clock at \(clock.now)")
        clock.advance(by: .milliseconds(499))
        try #require(await clock.waitForSleeper())
        try await Task.sleep(for: .milliseconds(100))
        #expect(server.requests(to: Self.playlistURL).count == 1, "reloaded before the minimum interval")
        server.serve(playlist((0..<4).map { "seg\($0).mp3" }, live: false), at: Self.playlistURL)
        clock.advance(by: .milliseconds(1))
        let play = try await running.finish()
        #expect(play.state.hasEnded, "\(play.state)")
        #expect(server.requests(to: Self.playlistURL).count == 2)
        #expect(Self.segmentRequests(server) == (0..<4).map { "seg\($0).mp3" })
    }

    @Test("a live playlist whose media sequence goes back (an encoder restarted) is rejoined after two reloads show it, not waited on in silence")
    func mediaSequenceWentBack() async throws {
        let clock = ManualClock()
        let server = ScriptedMediaServer()
        for (index, segment) in Self.segments().enumerated() { server.serve(Array(segment), at: Self.segmentURL(index)) }
        server.serve(Self.mediaPlaylist(["seg0.mp3", "seg1.mp3"], live: true, firstSequence: 5_000), at: Self.playlistURL)
        let running = ScriptedPlay.start(server, url: Self.playlistURL, configure: { $0.clock = clock })
        try #require(await eventually { Self.segmentRequests(server).count == 2 })
        // The encoder restarts: its numbering begins again at 0, far behind the 5 002 awaited.
        server.serve(Self.mediaPlaylist(["seg2.mp3", "seg3.mp3"], live: true, firstSequence: 0), at: Self.playlistURL)
        var ended = false
        // Half a second of the clock at a time, each once the input waits at the live edge
        // again (a sleep of at most half a second to come: not one the last step ended, nor a
        // request's time limit), until the end.
        let deadline = ContinuousClock.now + .seconds(15)
        while !running.player.state.isFinal, ContinuousClock.now < deadline {
            if !ended, Self.segmentRequests(server).count == 4 {
                // Rejoined and read to the edge: the stream ends.
                server.serve(Self.mediaPlaylist(["seg2.mp3", "seg3.mp3"], firstSequence: 0), at: Self.playlistURL)
                ended = true
            }
            let now = clock.now
            if await clock.waitForSleeper(timeout: .milliseconds(100), where: { $0 > now && $0 <= now + .milliseconds(500) }) {
                clock.advance(by: .milliseconds(500))
            }
        }
        let play = try await running.finish()
        #expect(play.state.hasEnded, "\(play.state)")
        #expect(Self.segmentRequests(server) == (0..<4).map { "seg\($0).mp3" })
        // Not on the first reload that showed the numbers gone back (a stale copy would look
        // the same), but on the second.
        let firstRejoined = try #require(server.requests.firstIndex { $0.url.contains("seg2") })
        #expect(server.requests[..<firstRejoined].filter { $0.url == Self.playlistURL }.count == 3, "\(server.requests.map(\.url))")
    }

    @Test("a radio playlist's first entry that fails before any audio falls back to the next")
    func radioPlaylistFallsBack() async throws {
        let server = ScriptedMediaServer()
        let list = "https://radio.test/station.m3u"
        server.serve(Array("#EXTM3U\nhttps://radio.test/gone.mp3\n\(ScriptedPlay.url)\n".utf8), at: list,
                     contentType: "audio/x-mpegurl")
        server.serve(Self.track, at: ScriptedPlay.url)
        let play = try await ScriptedPlay.play(server, url: list)
        #expect(play.state.hasEnded, "\(play.state)")
        #expect(ScriptedPlay.requestsWithinTrack(server).map(\.url) == [list, "https://radio.test/gone.mp3", ScriptedPlay.url])
        #expect(SampleDifference.between(play.samples, (try await ScriptedPlay.reference()).samples) == nil)
    }

    @Test("a radio playlist refused as expired (403) is fetched again from the refresher's URL")
    func expiredRadioPlaylistRenews() async throws {
        let server = ScriptedMediaServer()
        let list = "https://radio.test/station.pls?sig=old"
        let fresh = "https://radio.test/station.pls?sig=new"
        let pls = Array("[playlist]\nNumberOfEntries=1\nFile1=\(ScriptedPlay.url)\nVersion=2\n".utf8)
        server.serve(pls, at: list, contentType: "audio/x-scpls")
        server.script(list, .status(403))
        server.serve(pls, at: fresh, contentType: "audio/x-scpls")
        server.serve(Self.track, at: ScriptedPlay.url)
        let play = try await ScriptedPlay.play(server, url: list, urlRefresher: { _ in fresh })
        #expect(play.state.hasEnded, "\(play.state)")
        #expect(ScriptedPlay.requestsWithinTrack(server).map(\.url) == [list, fresh, ScriptedPlay.url])
    }
}
