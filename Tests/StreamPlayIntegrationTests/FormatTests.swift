import Foundation
import Testing
@testable import StreamPlay
import StreamPlayTesting

/// Every format besides MPEG audio plays through FFmpeg's libraries exactly as the ffmpeg
/// program decodes it, whatever its name says, from a file and over HTTP; seeks land on the
/// frame; an MP4 whose index follows its media is read with Range requests, not downloaded.
@Suite("Formats through FFmpeg", .serialized, .needsTestServers)
struct FormatTests {
    static let files = [
        "formats/tone.flac", "formats/tone-48k-mono.flac", "formats/tone.m4a", "formats/tone-faststart.m4a",
        "formats/tone.aac", "formats/tone.ogg", "formats/tone.opus",
        // Their last page not marked end-of-stream (a recording of a live stream): complete.
        "formats/no-eos.ogg", "formats/no-eos.opus",
        // An ID3v1 tag after the last page: bytes that are no page, not a truncation.
        "formats/id3v1-trailer.ogg", "formats/id3v1-trailer.opus",
        // Named .mp3, but AAC: the content decides.
        "formats/aac-named.mp3", "formats/m4a-named.mp3",
    ]

    @Test("over HTTP, sample for sample as the ffmpeg program decodes it", arguments: files)
    func overHTTP(file: String) async throws {
        try await Self.expectExactPlay("\(try TestEnvironment.http())/\(file)", reference: file)
    }

    @Test("from a file, sample for sample as the ffmpeg program decodes it",
          arguments: ["formats/tone.m4a", "formats/tone.opus", "formats/aac-named.mp3"])
    func fromFile(file: String) async throws {
        try await Self.expectExactPlay("\(try TestEnvironment.media())/\(file)", reference: file)
    }

    static func expectExactPlay(_ location: String, reference name: String) async throws {
        let reference = try ReferenceAudio(name)
        let played = try await playToWAV(location)
        #expect(played.state == .ended)
        let output = played.wav
        #expect(output.sampleRate == reference.sampleRate && output.channels == reference.channels,
                "\(name): \(output.sampleRate) Hz \(output.channels) ch, the reference \(reference.sampleRate) Hz \(reference.channels) ch")
        #expect(output.samples.count == reference.samples.count, "\(name): \(output.samples.count) samples, the reference \(reference.samples.count)")
        #expect(SampleDifference.between(output.samples, reference.samples) == nil, "\(name): the audio differs from ffmpeg's decode")
        let durations = played.events.compactMap { if case .durationKnown(let seconds) = $0 { seconds } else { nil } }
        let duration = try #require(durations.last, "\(name): no duration reported")
        // ADTS has no index: its duration is estimated from the bitrate, as every player does.
        let tolerance = name.hasSuffix(".aac") || name.hasSuffix("aac-named.mp3") ? 0.5 : 0.1
        #expect(abs(duration - Double(reference.frameCount) / Double(reference.sampleRate)) < tolerance, "\(name): duration \(duration)")
    }

    @Test("an M4A with its index after the media: the index by a Range request, then the media; no byte read twice beyond the index")
    func indexAtTheEnd() async throws {
        let file = "formats/long.m4a"
        let reference = try ReferenceAudio(file)
        let uri = "/\(file)?moov-\(UUID().uuidString.prefix(8))"
        // A ring far smaller than the media: reaching the index needs a Range request.
        let played = try await playToWAV("\(try TestEnvironment.http())\(uri)") { $0.inputBufferCapacity = 64 * 1024 }
        #expect(played.state == .ended)
        #expect(SampleDifference.between(played.samples, reference.samples) == nil)
        let requests = try accessLogEntries(for: uri)
        #expect(requests.contains { $0.status == 206 && $0.range != "bytes=0-" }, "no Range request for the index: \(requests)")
        #expect(requests.count <= 4, "the file was read in \(requests.count) requests: \(requests)")
    }

    @Test("starting at a time, over HTTP with a small ring: FLAC, Vorbis and Opus to the sample",
          arguments: ["formats/long.flac", "formats/tone.ogg", "formats/tone.opus"])
    func startOffsetExact(file: String) async throws {
        let reference = try ReferenceAudio(file)
        let played = try await playToWAV("\(try TestEnvironment.http())/\(file)", startingAt: 3.5) { $0.inputBufferCapacity = 64 * 1024 }
        #expect(played.state == .ended)
        let output = played.samples
        let target = Int(3.5 * Double(reference.sampleRate)) * reference.channels
        #expect(output.count == reference.samples.count - target, "\(file): \(output.count) samples after the seek")
        // Opus decodes its first frames after a seek from a shorter history than a decode from
        // the start; past them, and for FLAC and Vorbis from the first sample, bit for bit.
        let settled = file.hasSuffix(".opus") ? 4096 * reference.channels : 0
        #expect(output.count > settled)
        #expect(output[settled...].elementsEqual(reference.samples[(target + settled)...]),
                "\(file): the audio after the seek differs from the reference")
        let seeked = played.events.compactMap { if case .seeked(let to) = $0 { to } else { nil } }
        #expect(seeked.first.map { abs($0 - 3.5) < 0.001 } == true, "\(file): seeked events \(seeked)")
    }

    @Test("a FLAC with a seek table lands to the sample, in fewer Range requests than the same FLAC without one")
    func seekTableUsed() async throws {
        // Both files are 30 s of digital silence, then 30 s of noise; the seek goes into the
        // noise, where the silence's tiny frames mislead interpolation. Only the seek table
        // (a point a second, written by metaflac) tells the two apart.
        let reference = try ReferenceAudio("formats/seektable.flac")
        let seconds = 47.25
        func rangeRequests(_ file: String) async throws -> (samples: [Int16], requests: Int) {
            let uri = "/\(file)?seek-table-\(UUID().uuidString.prefix(8))"
            let played = try await playToWAV("\(try TestEnvironment.http())\(uri)", startingAt: seconds) {
                $0.inputBufferCapacity = 64 * 1024
            }
            #expect(played.state == .ended, "\(file): \(played.state)")
            return (played.samples, try accessLogEntries(for: uri).filter { $0.status == 206 && $0.range != "bytes=0-" }.count)
        }
        let withTable = try await rangeRequests("formats/seektable.flac")
        let target = Int(seconds * Double(reference.sampleRate)) * reference.channels
        #expect(withTable.samples.count == reference.samples.count - target, "\(withTable.samples.count) samples after the seek")
        #expect(SampleDifference.between(withTable.samples, Array(reference.samples[target...])) == nil)
        let withoutTable = try await rangeRequests("seek/seek.flac")
        #expect(withTable.requests >= 1 && withTable.requests <= 2,
                "\(withTable.requests) Range requests with a seek table (without: \(withoutTable.requests))")
        #expect(withTable.requests < withoutTable.requests,
                "\(withTable.requests) Range requests with a seek table, \(withoutTable.requests) without")
    }

    @Test("seeking AAC in MP4 and ADTS lands on the target: the audio after it matches the reference there",
          arguments: ["formats/long.m4a", "formats/tone.aac"])
    func startOffsetAAC(file: String) async throws {
        let reference = try ReferenceAudio(file)
        let played = try await playToWAV("\(try TestEnvironment.http())/\(file)", startingAt: 2)
        #expect(played.state == .ended)
        let output = played.samples
        // AAC after a seek decodes from a pre-roll, and its noise substitution does not repeat
        // the whole file's decode bit for bit: the audio is compared by its difference from the
        // reference at the target, which a landing one frame off turns into noise.
        let channels = reference.channels
        let target = 2 * reference.sampleRate * channels
        #expect(output.count == reference.samples.count - target, "\(file): \(output.count / channels) frames after the seek")
        let window = reference.sampleRate * channels
        let snr = PCM.signalToNoise(output[0..<window], reference.samples[target..<(target + window)])
        #expect(snr > 30, "\(file): the second after the seek is \(snr) dB from the reference at the target")
        let offByOne = PCM.signalToNoise(output[0..<window], reference.samples[(target + channels)..<(target + channels + window)])
        #expect(offByOne < snr - 10, "\(file): one frame later matches as well (\(offByOne) dB): the check tells nothing")
    }

    @Test("an M4A cut short inside its index fails with a typed error naming the container, and no audio")
    func truncatedIndex() async throws {
        let played = try await playToWAV("\(try TestEnvironment.http())/formats/truncated.m4a", within: 10)
        guard case .failed(let error) = played.state else {
            Issue.record("expected a failure, ended in \(played.state)")
            return
        }
        #expect(error.code == .notAudio)
        #expect(error.description.contains("MP4"), "\(error)")
        #expect(played.samples.isEmpty)
        #expect(engineThreadNames().isEmpty)
    }

    @Test("garbage in the middle of an ADTS stream is skipped: the play goes on and ends, what surrounds the damage intact")
    func garbageInTheMiddle() async throws {
        let reference = try ReferenceAudio("formats/tone.aac")
        let played = try await playToWAV("\(try TestEnvironment.http())/formats/garbage-middle.aac")
        #expect(played.state == .ended)
        let output = played.samples
        // The damage is 3000 bytes, about 0.2 s of the stream: at most half a second lost or
        // invented around it.
        #expect(abs(output.count - reference.samples.count) <= 44100, "\(output.count) samples, the clean file \(reference.samples.count)")
        // The audio before the damage is the clean file's, exactly.
        let before = 44100 * 2
        #expect(output.prefix(before).elementsEqual(reference.samples.prefix(before)))
        // And the last second after it, wherever it lands, is the clean file's last second.
        let last = 44100 * 2
        #expect(PCM.signalToNoise(output.suffix(last), reference.samples.suffix(last)) > 30)
    }

    @Test("a file cut short in its media fails once the audio runs out, naming the truncation",
          arguments: ["formats/truncated.flac", "formats/truncated-media.m4a"])
    func truncatedMedia(file: String) async throws {
        let played = try await playToWAV("\(try TestEnvironment.media())/\(file)", within: 20)
        guard case .failed(let error) = played.state else {
            Issue.record("\(file): expected a failure, ended in \(played.state)")
            return
        }
        #expect(error.code == .decodingFailed && error.description.contains("truncated"), "\(file): \(error)")
    }

    @Test("a queue of an M4A, a FLAC and an Ogg Vorbis track joins without a gap: the output is their decodes end to end")
    func gaplessAcrossDecoders() async throws {
        let parts = ["formats/part1.m4a", "formats/part2.flac", "formats/part3.ogg"]
        let locations = try parts.map { try MediaLocation(parsing: "\(try TestEnvironment.http())/\($0)") }
        let played = try await playToWAV { $0.play(locations) }
        #expect(played.state == .ended)
        let expected = try ReferenceAudio(joining: parts).samples
        let output = played.samples
        #expect(output.count == expected.count, "\(output.count) samples, the decodes \(expected.count)")
        #expect(output == expected, "the joined output differs from the three decodes end to end")
    }

    @Test("a container's tags (Vorbis comments, MP4 ilst) are reported as one metadata event",
          arguments: ["formats/tagged.flac", "formats/tagged.m4a", "formats/tagged.ogg"])
    func tags(file: String) async throws {
        let player = Player(configuration: PlayerConfiguration(output: .null))
        let events = EventLog(player)
        player.play("\(try TestEnvironment.http())/\(file)")
        #expect(try await player.finish(within: 20) == .ended)
        try await events.catchUp(until: .ended)
        player.stop()
        let metadata = events.all.compactMap { if case .metadata(let names) = $0 { names } else { nil } }
        #expect(metadata == [StreamMetadata(title: "Tagged Title", artist: "Tag Artist", album: "Tag Album")], "\(file): \(metadata)")
    }

    @Test("cover art and the track number: an ID3v2 APIC and TRCK, an MP4 covr and trkn, a FLAC PICTURE and TRACKNUMBER",
          arguments: ["formats/tagged-cover.mp3", "formats/tagged-cover.m4a", "formats/tagged-cover.flac"])
    func coverArt(file: String) async throws {
        let cover = try [UInt8](Data(contentsOf: URL(fileURLWithPath: "\(try TestEnvironment.media())/formats/cover.png")))
        let reference = try ReferenceAudio(file)
        let played = try await playToWAV("\(try TestEnvironment.http())/\(file)")
        #expect(played.state == .ended)
        if file.hasSuffix(".mp3") {
            // mpg123 decodes MP3, and the reference is ffmpeg's decoder, which rounds otherwise.
            let count = min(played.samples.count, reference.samples.count)
            #expect(abs(played.samples.count - reference.samples.count) <= 2 * 1152 * 2, "\(file): \(played.samples.count) samples")
            #expect(PCM.signalToNoise(played.samples[..<count], reference.samples[..<count]) > 40, "\(file): the audio differs")
        } else {
            let exact = played.samples == reference.samples
            #expect(exact, "\(file): the audio differs from ffmpeg's decode")
        }
        let metadata = played.events.compactMap { if case .metadata(let names) = $0 { names } else { nil } }
        #expect(metadata.count == 1, "\(file): \(metadata.count) metadata events")
        let names = try #require(metadata.first)
        #expect(names.title == "Covered Title" && names.artist == "Tag Artist" && names.album == "Tag Album", "\(file)")
        #expect(names.trackNumber == 3, "\(file): track \(String(describing: names.trackNumber))")
        #expect(names.artwork?.mimeType == "image/png", "\(file): \(String(describing: names.artwork?.mimeType))")
        #expect(names.artwork?.data == cover, "\(file): the picture is not cover.png")
    }

    @Test("a dropped or reset connection resumes by Range under FFmpeg too, with no sample lost or repeated",
          arguments: ["/drop-after/100000/formats/long.flac", "/reset-after/100000/formats/long.m4a",
                      "/drop-every/65536/formats/tone.ogg"])
    func resumesAfterDrop(path: String) async throws {
        let file = String(path.split(separator: "/").suffix(2).joined(separator: "/"))
        let reference = try ReferenceAudio(file)
        let unique = RecoveryTests.unique(path)
        let (final, samples) = try await RecoveryTests.play(unique)
        #expect(final == .ended)
        #expect(SampleDifference.between(samples, reference.samples) == nil, "\(path): audio differs after the reconnect")
        #expect(try RecoveryTests.requests(unique).contains { $0.range != nil }, "\(path): no Range request")
    }

    @Test("--length and a start time hold on the FFmpeg path: exactly the stretch asked for")
    func lengthLimit() async throws {
        let reference = try ReferenceAudio("formats/long.flac")
        let played = try await playToWAV("\(try TestEnvironment.http())/formats/long.flac", startingAt: 5, length: 2)
        #expect(played.state == .ended)
        let output = played.samples
        #expect(SampleDifference.between(output, Array(reference.samples[(5 * 44100 * 2)..<(7 * 44100 * 2)])) == nil)
    }
}
