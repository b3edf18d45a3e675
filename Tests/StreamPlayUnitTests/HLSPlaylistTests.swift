import Testing
@testable import StreamPlay

@Suite("HLS playlists (m3u8)")
struct HLSPlaylistTests {
    /// The playlist URL of most cases: its query carries a token no error may repeat.
    static let playlistURL = "https://cdn.example/radio/audio/list.m3u8?token=SECRET"

    /// `text` parsed as a media playlist fetched from `url`.
    static func media(_ text: String, url: String = playlistURL) throws -> HLSMediaPlaylist {
        guard case .media(let playlist) = try HLSPlaylistParser.parse(text, url: url) else {
            Issue.record("expected a media playlist")
            throw PlayerError.invalidPlaylist(url: url, reason: "not a media playlist")
        }
        return playlist
    }

    /// The bytes 0, 1, ... 15.
    static let countingIV: [UInt8] = Array(0..<16)

    /// The error parsing `text` throws, nil when it parses.
    static func parseError(_ text: String, url: String = playlistURL) -> PlayerError? {
        do {
            _ = try HLSPlaylistParser.parse(text, url: url)
            return nil
        } catch {
            return error
        }
    }

    /// Whether parsing `text` fails with invalidPlaylist, without the token in the message.
    static func isInvalid(_ text: String) -> Bool {
        guard let error = parseError(text), error.code == .invalidPlaylist else { return false }
        return !error.description.contains("SECRET") && !error.description.contains("token")
    }

    @Test("a VOD playlist: relative, rooted and absolute URIs, the base's query dropped")
    func vod() throws {
        let playlist = try Self.media("""
            #EXTM3U
            #EXT-X-VERSION:3
            #EXT-X-TARGETDURATION:10
            # a comment
            #EXTINF:10.0,First
            segment0.mp3

            #EXTINF:9.5,
            /root/segment1.mp3
            #EXTINF:4
            http://other.example/segment2.mp3?sig=abc
            #EXT-X-ENDLIST
            """)
        #expect(playlist.targetDuration == 10)
        #expect(playlist.mediaSequence == 0)
        #expect(playlist.hasEndList)
        #expect(playlist.isComplete)
        #expect(playlist.totalDuration == 23.5)
        #expect(playlist.segments.map(\.url) == [
            "https://cdn.example/radio/audio/segment0.mp3", "https://cdn.example/root/segment1.mp3",
            "http://other.example/segment2.mp3?sig=abc",
        ])
        #expect(playlist.segments.map(\.sequence) == [0, 1, 2])
        #expect(playlist.segments.map(\.duration) == [10, 9.5, 4])
        #expect(playlist.segments.allSatisfy { $0.key == nil && $0.byteRange == nil && !$0.discontinuity })
    }

    @Test("PLAYLIST-TYPE:VOD alone makes a playlist complete; EVENT does not")
    func playlistType() throws {
        let vod = try Self.media("#EXTM3U\n#EXT-X-TARGETDURATION:5\n#EXT-X-PLAYLIST-TYPE:VOD\n#EXTINF:5,\na.mp3\n")
        #expect(vod.playlistType == .vod && vod.isComplete && !vod.hasEndList)
        let event = try Self.media("#EXTM3U\n#EXT-X-TARGETDURATION:5\n#EXT-X-PLAYLIST-TYPE:EVENT\n#EXTINF:5,\na.mp3\n")
        #expect(event.playlistType == .event && !event.isComplete)
    }

    @Test("a live playlist numbers its segments from EXT-X-MEDIA-SEQUENCE")
    func live() throws {
        let playlist = try Self.media("""
            #EXTM3U
            #EXT-X-TARGETDURATION:6
            #EXT-X-MEDIA-SEQUENCE:42
            #EXTINF:6.006,
            live/42.mp3
            #EXTINF:6.006,
            live/43.mp3
            #EXTINF:5.5,
            live/44.mp3
            """)
        #expect(!playlist.isComplete)
        #expect(playlist.mediaSequence == 42)
        #expect(playlist.segments.map(\.sequence) == [42, 43, 44])
        #expect(playlist.segments.last?.url == "https://cdn.example/radio/audio/live/44.mp3")
        // A live playlist may have no segment yet.
        #expect(try Self.media("#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXT-X-MEDIA-SEQUENCE:7\n").segments.isEmpty)
    }

    @Test("EXT-X-DISCONTINUITY marks the segment after it only")
    func discontinuity() throws {
        let playlist = try Self.media("""
            #EXTM3U
            #EXT-X-TARGETDURATION:10
            #EXTINF:10,
            a.mp3
            #EXT-X-DISCONTINUITY
            #EXTINF:10,
            advert.mp3
            #EXTINF:10,
            b.mp3
            #EXT-X-ENDLIST
            """)
        #expect(playlist.segments.map(\.discontinuity) == [false, true, false])
    }

    @Test("byte ranges: explicit offsets, offsets following on, and one with nothing to follow")
    func byteRanges() throws {
        let playlist = try Self.media("""
            #EXTM3U
            #EXT-X-TARGETDURATION:10
            #EXTINF:10,
            #EXT-X-BYTERANGE:1000@0
            all.mp3
            #EXTINF:10,
            #EXT-X-BYTERANGE:2000
            all.mp3
            #EXTINF:10,
            #EXT-X-BYTERANGE:500@10000
            all.mp3
            #EXTINF:10,
            #EXT-X-BYTERANGE:700
            all.mp3
            #EXTINF:10,
            whole.mp3
            #EXT-X-ENDLIST
            """)
        #expect(playlist.segments.map(\.byteRange) == [
            HLSByteRange(offset: 0, length: 1000), HLSByteRange(offset: 1000, length: 2000),
            HLSByteRange(offset: 10000, length: 500), HLSByteRange(offset: 10500, length: 700), nil,
        ])
        // No offset and no previous sub-range: where would it start?
        #expect(Self.isInvalid("#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\n#EXT-X-BYTERANGE:100\na.mp3\n#EXT-X-ENDLIST\n"))
        // The previous sub-range is of another resource.
        #expect(Self.isInvalid("""
            #EXTM3U
            #EXT-X-TARGETDURATION:10
            #EXTINF:10,
            #EXT-X-BYTERANGE:100@0
            a.mp3
            #EXTINF:10,
            #EXT-X-BYTERANGE:100
            b.mp3
            #EXT-X-ENDLIST
            """))
        // The previous segment is the whole resource.
        #expect(Self.isInvalid("#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\na.mp3\n#EXTINF:10,\n#EXT-X-BYTERANGE:100\na.mp3\n"))
        for range in ["-5@0", "x", "0", "10@-1", "10@", "99999999999999999999"] {
            #expect(Self.isInvalid("#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\n#EXT-X-BYTERANGE:\(range)\na.mp3\n"), "\(range)")
        }
    }

    @Test("keys: AES-128 with and without IV, METHOD=NONE ends encryption")
    func keys() throws {
        let playlist = try Self.media("""
            #EXTM3U
            #EXT-X-TARGETDURATION:10
            #EXT-X-MEDIA-SEQUENCE:7
            #EXT-X-KEY:METHOD=AES-128,URI="keys/k1.bin?auth=1",IV=0x000102030405060708090A0B0C0D0E0F
            #EXTINF:10,
            a.mp3
            #EXT-X-KEY:METHOD=AES-128,URI="https://keys.example/k2"
            #EXTINF:10,
            b.mp3
            #EXTINF:10,
            c.mp3
            #EXT-X-KEY:METHOD=NONE
            #EXTINF:10,
            d.mp3
            #EXT-X-ENDLIST
            """)
        let keys = playlist.segments.map(\.key)
        #expect(keys[0] == HLSKey(url: "https://cdn.example/radio/audio/keys/k1.bin?auth=1", iv: Self.countingIV))
        #expect(keys[1] == HLSKey(url: "https://keys.example/k2", iv: nil))
        #expect(keys[2] == keys[1])
        #expect(keys[3] == nil)
        // The IV given wins over the sequence number.
        #expect(try #require(keys[0]).initializationVector(sequence: 7) == Self.countingIV)
        // Without one, the sequence number as a 128-bit big-endian integer.
        let key = try #require(keys[1])
        #expect(key.initializationVector(sequence: playlist.segments[1].sequence) == [UInt8](repeating: 0, count: 15) + [8])
        #expect(key.initializationVector(sequence: 7) == [UInt8](repeating: 0, count: 15) + [7])
        #expect(key.initializationVector(sequence: 0x0102_0304_0506_0708) == [UInt8](repeating: 0, count: 8) + [1, 2, 3, 4, 5, 6, 7, 8])
        #expect(key.initializationVector(sequence: 256) == [UInt8](repeating: 0, count: 14) + [1, 0])
    }

    @Test("SAMPLE-AES and FairPlay keys are refused as DRM, naming the scheme")
    func sampleAES() {
        let text = """
            #EXTM3U
            #EXT-X-TARGETDURATION:10
            #EXT-X-KEY:METHOD=SAMPLE-AES,URI="skd://key",KEYFORMAT="com.apple.streamingkeydelivery"
            #EXTINF:10,
            a.aac
            """
        let error = Self.parseError(text)
        #expect(error?.code == .drmProtected)
        #expect(error?.format == "SAMPLE-AES with KEYFORMAT com.apple.streamingkeydelivery (FairPlay skd:// key)")
        #expect(error?.url == "https://cdn.example/radio/audio/list.m3u8")
        let cenc = """
            #EXTM3U
            #EXT-X-TARGETDURATION:10
            #EXT-X-KEY:METHOD=SAMPLE-AES-CTR,URI="data:text/plain;base64,AAAA"
            #EXTINF:10,
            a.m4s
            """
        #expect(Self.parseError(cenc)?.format == "SAMPLE-AES-CTR")
    }

    @Test("a master playlist: quoted CODECS with commas, BANDWIDTH required")
    func master() throws {
        let text = """
            #EXTM3U
            #EXT-X-INDEPENDENT-SEGMENTS
            #EXT-X-STREAM-INF:BANDWIDTH=128000,AVERAGE-BANDWIDTH=120000,CODECS="mp4a.40.34"
            mp3/128/list.m3u8
            #EXT-X-STREAM-INF:CODECS="mp4a.40.2,avc1.4d401e",BANDWIDTH=256000,RESOLUTION=640x360
            # a comment between the tag and its URI
            https://video.example/256.m3u8
            #EXT-X-STREAM-INF:CODECS="mp4a.40.34"
            no-bandwidth.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=64000
            /low.m3u8
            """
        guard case .master(let variants) = try HLSPlaylistParser.parse(text, url: Self.playlistURL) else {
            Issue.record("expected a master playlist")
            return
        }
        #expect(variants == [
            HLSVariant(url: "https://cdn.example/radio/audio/mp3/128/list.m3u8", bandwidth: 128000, averageBandwidth: 120000, codecs: ["mp4a.40.34"]),
            HLSVariant(url: "https://video.example/256.m3u8", bandwidth: 256000, averageBandwidth: nil, codecs: ["mp4a.40.2", "avc1.4d401e"]),
            HLSVariant(url: "https://cdn.example/low.m3u8", bandwidth: 64000, averageBandwidth: nil, codecs: []),
        ])
        // No variant with a BANDWIDTH: nothing to play.
        #expect(Self.isInvalid("#EXTM3U\n#EXT-X-STREAM-INF:CODECS=\"mp3\"\na.m3u8\n"))
    }

    @Test("variant choice: the highest playable within the cap, the lowest above it, video-only and unknown codecs skipped")
    func variantChoice() {
        func variant(_ bandwidth: Int, _ codecs: [String] = []) -> HLSVariant {
            HLSVariant(url: "https://h.example/\(bandwidth).m3u8", bandwidth: bandwidth, averageBandwidth: nil, codecs: codecs)
        }
        let mp3 = [variant(64000, ["mp4a.40.34"]), variant(192000, ["mp3"]), variant(128000), variant(320000, ["mp4a.6B"])]
        #expect(HLSVariantSelection.choose(from: mp3, maximumBandwidth: nil) == mp3[3])
        #expect(HLSVariantSelection.choose(from: mp3, maximumBandwidth: 200000) == mp3[1])
        #expect(HLSVariantSelection.choose(from: mp3, maximumBandwidth: 128000) == mp3[2])
        #expect(HLSVariantSelection.choose(from: mp3, maximumBandwidth: 1000) == mp3[0])
        // AAC plays: the richer AAC variant wins over MP3.
        let mixed = [variant(64000, ["mp4a.69"]), variant(256000, ["mp4a.40.2"])]
        #expect(HLSVariantSelection.choose(from: mixed, maximumBandwidth: nil) == mixed[1])
        let aac = [variant(64000, ["mp4a.40.5"]), variant(128000, ["mp4a.40.2", "avc1.4d401e"]), variant(96000, ["Opus"])]
        #expect(HLSVariantSelection.choose(from: aac, maximumBandwidth: nil) == aac[1])
        #expect(HLSVariantSelection.choose(from: aac, maximumBandwidth: 100000) == aac[2])
        // Video alone, or codecs no decoder here knows: nothing to play.
        let foreign = [variant(500000, ["avc1.4d401e"]), variant(64000, ["dtsc"])]
        #expect(HLSVariantSelection.choose(from: foreign, maximumBandwidth: nil) == nil)
        #expect(HLSVariantSelection.choose(from: [], maximumBandwidth: 1) == nil)
    }

    @Test("isHLS tells an HLS playlist from a radio .m3u")
    func detection() {
        #expect(HLSPlaylistParser.isHLS("#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\na.mp3\n"))
        #expect(HLSPlaylistParser.isHLS("\u{FEFF}\n  #EXTM3U\r\n#EXT-X-STREAM-INF:BANDWIDTH=1\r\nv.m3u8\r\n"))
        #expect(!HLSPlaylistParser.isHLS("#EXTM3U\n#EXTINF:-1,Radio One\nhttp://radio.example/live.mp3\n"))
        #expect(!HLSPlaylistParser.isHLS("http://radio.example/live.mp3\n"))
        #expect(!HLSPlaylistParser.isHLS("#EXT-X-TARGETDURATION:10\n#EXTM3U\n"))
        #expect(!HLSPlaylistParser.isHLS(""))
    }

    @Test("malformed playlists are invalidPlaylist, and the errors keep the token to themselves")
    func invalid() throws {
        let cases = [
            "#EXTINF:10,\na.mp3\n#EXT-X-ENDLIST\n",
            "#EXTM3U\n#EXTINF:10,\na.mp3\n#EXT-X-ENDLIST\n",
            "#EXTM3U\n#EXT-X-TARGETDURATION:ten\n#EXTINF:10,\na.mp3\n",
            "#EXTM3U\n#EXT-X-TARGETDURATION:-1\n#EXTINF:10,\na.mp3\n",
            // Beyond a day: 1e16 s in whole milliseconds is past Int.max.
            "#EXTM3U\n#EXT-X-TARGETDURATION:10000000000000000\n#EXTINF:10,\na.mp3\n",
            "#EXTM3U\n#EXT-X-TARGETDURATION:86401\n#EXTINF:10,\na.mp3\n",
            "#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10000000000000000.5,\na.mp3\n",
            "#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:abc,\na.mp3\n",
            "#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:-1,\na.mp3\n",
            "#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:nan,\na.mp3\n",
            "#EXTM3U\n#EXT-X-TARGETDURATION:10\na.mp3\n",
            "#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXT-X-MEDIA-SEQUENCE:-3\n",
            "#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXT-X-ENDLIST\n",
            "#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXT-X-KEY:METHOD=AES-128\n#EXTINF:10,\na.mp3\n",
            "#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXT-X-KEY:URI=\"k\"\n#EXTINF:10,\na.mp3\n",
            "#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXT-X-KEY:METHOD=AES-128,URI=\"k\",IV=0x1234\n#EXTINF:10,\na.mp3\n",
            "#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXT-X-KEY:METHOD=AES-128,URI=\"k\",IV=0x000102030405060708090A0B0C0D0E0G\n#EXTINF:10,\na.mp3\n",
            "#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\njavascript:alert(1)\n",
            "#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\nfile:///etc/passwd\n",
            "#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXT-X-KEY:METHOD=AES-128,URI=\"data:text/plain,0123456789abcdef\"\n#EXTINF:10,\na.mp3\n",
            "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1000\nsmb://share/v.m3u8\n",
        ]
        for text in cases {
            #expect(Self.isInvalid(text), "\(text)")
        }
        // A day is still taken, for both.
        #expect(try Self.media("#EXTM3U\n#EXT-X-TARGETDURATION:86400\n#EXTINF:86400.0,\na.mp3\n").targetDuration == 86_400)
        #expect(Self.parseError("#EXTM3U\n#EXT-X-TARGETDURATION:99999999999999999999\n")
                == .invalidPlaylist(url: "https://cdn.example/radio/audio/list.m3u8",
                                    reason: "line 2: EXT-X-TARGETDURATION is not a number of seconds from 0 to a day"))
        // The line is named; the URI, which could carry a token of its own, is not.
        let error = try #require(Self.parseError("#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\njavascript:steal('TOKEN2')\n"))
        #expect(error.description.contains("line 4"))
        #expect(!error.description.contains("TOKEN2"))
        #expect(error == .invalidPlaylist(url: "https://cdn.example/radio/audio/list.m3u8", reason: "line 4: a URI that is neither relative nor http(s)"))
    }

    @Test("CRLF line endings read as LF ones")
    func crlf() throws {
        let text = "#EXTM3U\r\n#EXT-X-TARGETDURATION:10\r\n#EXT-X-MEDIA-SEQUENCE:3\r\n#EXTINF:10,\r\na.mp3\r\n\r\n#EXT-X-DISCONTINUITY\r\n#EXTINF:8,\r\nb.mp3\r\n#EXT-X-ENDLIST\r\n"
        let playlist = try Self.media(text)
        #expect(playlist == (try Self.media(text.split(separator: "\r\n", omittingEmptySubsequences: false).joined(separator: "\n"))))
        #expect(playlist.segments.map(\.url) == ["https://cdn.example/radio/audio/a.mp3", "https://cdn.example/radio/audio/b.mp3"])
        #expect(playlist.segments.map(\.sequence) == [3, 4])
        #expect(playlist.segments.map(\.discontinuity) == [false, true])
        #expect(playlist.hasEndList)
    }

    @Test("segmentIndex(at:) and startTime(ofSegment:)")
    func seeking() throws {
        let playlist = try Self.media("#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\na.mp3\n#EXTINF:5.5,\nb.mp3\n#EXTINF:10,\nc.mp3\n#EXT-X-ENDLIST\n")
        #expect(playlist.segmentIndex(at: 0) == (0, 0))
        #expect(playlist.segmentIndex(at: -3) == (0, 0))
        #expect(playlist.segmentIndex(at: 4.2) == (0, 0))
        #expect(playlist.segmentIndex(at: 12) == (1, 10))
        // A boundary belongs to the segment that starts there.
        #expect(playlist.segmentIndex(at: 10) == (1, 10))
        #expect(playlist.segmentIndex(at: 15.5) == (2, 15.5))
        // Past the end: the last segment.
        #expect(playlist.segmentIndex(at: 25.5) == (2, 15.5))
        #expect(playlist.segmentIndex(at: 1000) == (2, 15.5))
        #expect(playlist.startTime(ofSegment: 0) == 0)
        #expect(playlist.startTime(ofSegment: 1) == 10)
        #expect(playlist.startTime(ofSegment: 2) == 15.5)
        #expect(playlist.startTime(ofSegment: 3) == playlist.totalDuration)
        #expect(playlist.totalDuration == 25.5)
    }

    @Test("EXT-X-MAP is resolved and carried by each segment it applies to")
    func initializationMap() throws {
        let map = try Self.media("#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXT-X-MAP:URI=\"init.mp4\"\n#EXTINF:10,\nseg1.m4s\n#EXTINF:10,\nseg2.m4s\n#EXT-X-ENDLIST\n")
        #expect(map.segments.map(\.initializationMap) == Array(repeating: HLSInitializationMap(
            url: "https://cdn.example/radio/audio/init.mp4", byteRange: nil), count: 2))
    }

    @Test("EXT-X-MAP's BYTERANGE, quoted or not, with or without its offset; a bad one is a typed error naming it")
    func initializationMapByteRange() throws {
        func map(_ attributes: String) throws -> HLSInitializationMap? {
            try Self.media("#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXT-X-MAP:\(attributes)\n#EXT-X-BYTERANGE:5000@720\n#EXTINF:10,\nall.mp4\n#EXT-X-ENDLIST\n")
                .segments[0].initializationMap
        }
        let url = "https://cdn.example/radio/audio/all.mp4"
        #expect(try map("URI=\"all.mp4\",BYTERANGE=\"720@0\"") == HLSInitializationMap(url: url, byteRange: HLSByteRange(offset: 0, length: 720)))
        #expect(try map("URI=\"all.mp4\",BYTERANGE=720@16") == HLSInitializationMap(url: url, byteRange: HLSByteRange(offset: 16, length: 720)))
        #expect(try map("BYTERANGE=\"720\",URI=\"all.mp4\"") == HLSInitializationMap(url: url, byteRange: HLSByteRange(offset: 0, length: 720)))
        for bad in ["0@0", "x@0", "720@y", "720@9223372036854775800"] {
            do {
                _ = try map("URI=\"all.mp4\",BYTERANGE=\"\(bad)\"")
                Issue.record("BYTERANGE \(bad) was taken")
            } catch {
                #expect("\(error)".contains("EXT-X-MAP BYTERANGE"), "\(bad): \(error)")
            }
        }
    }

    @Test("RelativeLocation resolves as a browser would, and refuses other schemes")
    func relativeLocation() {
        let base = "https://host.example:8443/a/b/list.m3u8?token=SECRET"
        #expect(RelativeLocation.resolve("seg.mp3", against: base) == "https://host.example:8443/a/b/seg.mp3")
        #expect(RelativeLocation.resolve("/seg.mp3", against: base) == "https://host.example:8443/seg.mp3")
        #expect(RelativeLocation.resolve("//other.example/seg.mp3", against: base) == "https://other.example/seg.mp3")
        #expect(RelativeLocation.resolve("HTTP://x.example/s", against: base) == "HTTP://x.example/s")
        #expect(RelativeLocation.resolve("seg.mp3", against: "http://host.example") == "http://host.example/seg.mp3")
        #expect(RelativeLocation.resolve("seg.mp3", against: "http://host.example?x=/y/") == "http://host.example/seg.mp3")
        #expect(RelativeLocation.resolve("seg.mp3", against: "/music/list.m3u8") == "/music/seg.mp3")
        #expect(RelativeLocation.resolve("/seg.mp3", against: "/music/list.m3u8") == "/seg.mp3")
        #expect(RelativeLocation.resolve("data:audio/mpeg;base64,AAAA", against: base) == nil)
        #expect(RelativeLocation.resolve("seg\u{0}.mp3", against: base) == nil)
        #expect(RelativeLocation.resolve("", against: base) == nil)
    }
}
