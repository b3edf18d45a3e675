import Foundation
import StreamPlay
import StreamPlayTesting
import Testing

/// A play of a URL through a `Player` whose input is served by a `ScriptedMediaServer` and
/// whose output is a `RecordingSink`.
struct ScriptedPlay {
    /// Where the tests' track is served.
    static let url = "https://media.test/sweep.mp3"

    /// Twenty seconds of a 220–3520 Hz sweep, mono, 22.05 kHz, 32 kbit/s CBR MPEG-2 Layer III (lame, 80 KB:
    /// more than the smallest input buffer, so that transfers pause for room), with an ID3v2 tag
    /// naming it (so no ID3v1 tag is looked for at its end): every frame decodes to different
    /// samples, so a lost, repeated or misplaced byte range shows in the PCM.
    static let track: [UInt8] = {
        guard let url = Bundle.module.url(forResource: "sweep", withExtension: "mp3", subdirectory: "Media"),
              let data = try? Data(contentsOf: url) else { return [] }
        return [UInt8](data)
    }()

    let state: PlayerState
    /// Every sample the sink recorded, over all its parts.
    let samples: [Int16]
    let formats: [AudioFormat]

    /// Plays `url` to its end (or failure), failing the test after `timeout` seconds.
    static func play(_ server: ScriptedMediaServer, url: String = url, startingAt startTime: Double = 0,
                     urlRefresher: URLRefresher? = nil, timeout: Double = 20,
                     configure: (inout PlayerConfiguration) -> Void = { _ in }) async throws -> ScriptedPlay {
        let play = start(server, url: url, startingAt: startTime, urlRefresher: urlRefresher, configure: configure)
        return try await play.finish(timeout: timeout)
    }

    /// A play under way, which the test steers (a manual clock) before it waits for the end.
    struct Running {
        let player: Player
        let sink: RecordingSink

        /// Waits for the play's end (or failure), failing the test after `timeout` seconds.
        func finish(timeout: Double = 20) async throws -> ScriptedPlay {
            let player = self.player
            let state = try await withThrowingTaskGroup(of: PlayerState.self) { group in
                group.addTask { await player.waitUntilFinished() }
                group.addTask {
                    try await Task.sleep(for: .seconds(timeout))
                    throw PlayTimedOut(state: player.state)
                }
                let state = try await group.next()!
                group.cancelAll()
                return state
            }
            player.stop()
            return ScriptedPlay(state: state, samples: sink.parts.flatMap(\.samples), formats: sink.parts.map(\.format))
        }
    }

    /// Starts playing `url` from `server`, with a reconnect backoff of 50 ms unless `configure`
    /// says otherwise.
    static func start(_ server: ScriptedMediaServer, url: String = url, startingAt startTime: Double = 0,
                      urlRefresher: URLRefresher? = nil,
                      configure: (inout PlayerConfiguration) -> Void = { _ in }) -> Running {
        let sink = RecordingSink()
        var configuration = PlayerConfiguration(output: .custom { sink })
        configuration.mediaTransport = server
        configuration.reconnect.initialDelay = 0.05
        configure(&configuration)
        let player = Player(configuration: configuration)
        player.play(.remote(url), startingAt: startTime, urlRefresher: urlRefresher)
        return Running(player: player, sink: sink)
    }

    /// The requests for the track's bytes, without any past its end.
    ///
    /// A decoder that reaches the track's end before the input has reported it takes the end
    /// for a false one and asks for the byte after its position (answered 416, the play ends
    /// all the same); whether it happens depends on which thread is first, so tests leave it out.
    static func requestsWithinTrack(_ server: ScriptedMediaServer) -> [RecordedMediaRequest] {
        server.requests.filter { ($0.rangeStart ?? 0) < track.count }
    }

    /// The play of the track from a server with no faults: what every faulty play must equal.
    static func reference() async throws -> ScriptedPlay {
        let server = ScriptedMediaServer()
        server.serve(track, at: url)
        return try await play(server)
    }
}

struct PlayTimedOut: Error, CustomStringConvertible {
    let state: PlayerState
    var description: String { "the play did not finish in time (state \(state))" }
}

extension PlayerState {
    var hasEnded: Bool {
        if case .ended = self { true } else { false }
    }
}
