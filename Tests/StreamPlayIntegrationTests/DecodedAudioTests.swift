import Foundation
import Testing
@testable import StreamPlay
import StreamPlayTesting

/// What is played is what the file holds: the WAV sink's PCM equals `mpg123 -s`, sample for sample.
@Suite("Decoded audio equals the mpg123 reference", .needsTestServers)
struct DecodedAudioTests {
    static let files = [
        "cbr-44k-stereo.mp3", "vbr-44k-stereo.mp3", "cbr-48k-stereo.mp3", "cbr-44k-mono.mp3",
        "cbr-22k-mono.mp3", "vbr-48k-mono.mp3", "id3-big.mp3", "junk-front.mp3",
    ]

    @Test("over HTTP into the WAV sink", arguments: files)
    func httpToWAV(file: String) async throws {
        let reference = try ReferenceAudio("\(file)")
        let (configuration, path) = wavConfiguration()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let player = Player(configuration: configuration)
        player.play("\(try TestEnvironment.http())/\(file)")
        #expect(try await player.finish(within: 60) == .ended)
        #expect(player.format == AudioFormat(sampleRate: reference.sampleRate, channels: reference.channels))
        player.stop()
        let output = try PCM.wavSamples(path: path)
        #expect(output.sampleRate == reference.sampleRate)
        #expect(output.channels == reference.channels)
        #expect(output.samples.count == reference.samples.count)
        #expect(SampleDifference.between(output.samples, reference.samples) == nil, "decoded PCM differs from mpg123 -s for \(file)")
    }

    @Test("from a path, a file:// URL and HTTPS, all through the same ring")
    func otherInputs() async throws {
        let file = "cbr-44k-stereo-short.mp3"
        let reference = try ReferenceAudio(file)
        let media = try TestEnvironment.media()
        for location in ["\(media)/\(file)", "file://\(media)/\(file)", "\(try TestEnvironment.https())/\(file)"] {
            let caFile = try TestEnvironment.caFile()
            let played = try await playToWAV(configure: { $0.caCertificatesPath = caFile }) { $0.play(location) }
            #expect(played.state == .ended, "\(location)")
            #expect(SampleDifference.between(played.samples, reference.samples) == nil, "\(location)")
        }
    }

    @Test("a tiny input buffer still plays everything (the transfer pauses and resumes)")
    func smallRing() async throws {
        let file = "vbr-44k-stereo.mp3"
        let reference = try ReferenceAudio(file)
        let played = try await playToWAV("\(try TestEnvironment.http())/\(file)") { $0.inputBufferCapacity = 64 * 1024 }
        #expect(played.state == .ended)
        #expect(SampleDifference.between(played.samples, reference.samples) == nil)
    }

    @Test("duration comes from the Xing/LAME header, or from the length and bitrate")
    func duration() async throws {
        for file in ["vbr-44k-stereo.mp3", "cbr-44k-stereo.mp3", "cbr-48k-stereo.mp3"] {
            let reference = try ReferenceAudio(file)
            let player = Player(configuration: PlayerConfiguration(output: .null))
            player.play("\(try TestEnvironment.http())/\(file)")
            #expect(try await player.finish(within: 60) == .ended)
            let expected = Double(reference.frameCount) / Double(reference.sampleRate)
            let duration = try #require(player.duration, "\(file) has no duration")
            #expect(abs(duration - expected) < 0.05, "\(file): \(duration) s, expected \(expected) s")
            player.stop()
        }
    }

    @Test("--length: start and length cut the output to the frame")
    func startAndLength() async throws {
        let file = "cbr-44k-stereo.mp3"
        let reference = try ReferenceAudio(file)
        let played = try await playToWAV("\(try TestEnvironment.http())/\(file)", length: 2.5)
        #expect(played.state == .ended)
        let output = played.samples
        #expect(output.count == 110_250 * 2)
        #expect(SampleDifference.between(output, Array(reference.samples.prefix(110_250 * 2))) == nil)
    }

    @Test("a truncated file plays what it has, then ends")
    func truncated() async throws {
        let reference = try ReferenceAudio("truncated.mp3")
        let played = try await playToWAV("\(try TestEnvironment.http())/truncated.mp3")
        #expect(played.state == .ended)
        let output = played.samples
        #expect(output.count >= reference.samples.count - 1152 * 2)
        #expect(Array(output.prefix(reference.samples.count)) == Array(reference.samples.prefix(output.count)))
    }

    /// libmpg123 ends the first part where its LAME tag's frame count runs out, and the engine
    /// decodes on from the next frame (the next part's tag, a frame of silence that mpg123's
    /// own output keeps). That is one recovery for the whole file, not one for each join: the
    /// later tags are decoded as mpg123 decodes them.
    @Test("24 MP3s joined with cat, each with its own LAME tag, play whole: a join is not damage")
    func joinedParts() async throws {
        let reference = try ReferenceAudio("joined.mp3")
        let played = try await playToWAV("\(try TestEnvironment.http())/joined.mp3")
        // make-test-media.sh cuts each part to 11025 frames.
        Self.expectJoinedParts(played, reference, firstPartFrames: 11025, "over HTTP")
    }

    /// Checks a play of joined parts against mpg123's decode: at most the frame of silence at
    /// the first join (the second part's Info frame) is missing, and the first part and
    /// everything after that join are sample for sample mpg123's.
    static func expectJoinedParts(_ played: WAVPlay, _ reference: ReferenceAudio, firstPartFrames: Int,
                                  _ how: String) {
        #expect(played.state == .ended, "\(how): \(played.state)")
        let output = played.samples, channels = reference.channels
        #expect(abs(output.count - reference.samples.count) <= 1152 * channels,
                "\(how): \(output.count / channels) frames played, mpg123 decodes \(reference.frameCount)")
        let firstPart = firstPartFrames * channels
        #expect(SampleDifference.between(output.prefix(firstPart), reference.samples.prefix(firstPart)) == nil,
                "\(how): the first part differs from mpg123's decode")
        let rest = max(output.count - firstPart, 0)
        #expect(SampleDifference.between(output.suffix(rest), reference.samples.suffix(rest)) == nil,
                "\(how): the parts after the first join differ from mpg123's decode")
    }

    /// The second part reaches the decoder in the read that ends the input, before the decoder
    /// ends the first part: that end must not be taken for the track's, from a file, over HTTP
    /// (Range requests) or from a server without Range requests.
    @Test("a short part joined after a long one plays, though the input ended before the first part did",
          arguments: ["file", "http", "http without Range"])
    func shortJoinedPart(origin: String) async throws {
        let file = "joined-short.mp3"
        let reference = try ReferenceAudio(file)
        let url = switch origin {
        case "file": "\(try TestEnvironment.media())/\(file)"
        case "http": "\(try TestEnvironment.http())/\(file)"
        default: "\(try TestEnvironment.http())/norange/\(file)"
        }
        // make-test-media.sh cuts the parts at 2 s and 0.3 s.
        Self.expectJoinedParts(try await playToWAV(url), reference, firstPartFrames: 88200, origin)
    }

    @Test("24 joined parts play whole from a server without Range requests: the decoder is fed again what it held")
    func joinedPartsWithoutRanges() async throws {
        let reference = try ReferenceAudio("joined.mp3")
        let played = try await playToWAV("\(try TestEnvironment.http())/norange/joined.mp3")
        Self.expectJoinedParts(played, reference, firstPartFrames: 11025, "without Range")
    }

    @Test("volume scales the WAV output; 100% leaves it bit-exact")
    func volume() async throws {
        let file = "cbr-44k-mono.mp3"
        let reference = try ReferenceAudio(file)
        let url = "\(try TestEnvironment.http())/\(file)"
        let played = try await playToWAV { player in
            player.volume = 0.5
            player.play(url)
        }
        #expect(played.state == .ended)
        let output = played.samples
        #expect(output.count == reference.samples.count)
        let halved = reference.samples.map { Int16((Int($0) * 32768) >> 16) }
        #expect(output == halved)
    }
}
