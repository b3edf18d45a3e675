import StreamPlay
import StreamPlayMPRIS

/// Publishes the CLI's player on the session bus as `org.mpris.MediaPlayer2.streamplay` (or
/// `.instance<pid>` when another streamplay has that name). Without a session bus playback
/// goes on without MPRIS; `--verbose` says why.
enum MPRISPublishing {
    static func start(player: Player, verbose: Bool) -> MPRISService? {
        do {
            let service = try MPRISService(player: player, name: "streamplay", identity: "StreamPlay")
            if verbose { StandardStream.error("streamplay: MPRIS: published as \(service.busName)\n") }
            return service
        } catch {
            if verbose { StandardStream.error("streamplay: MPRIS is off: \(error)\n") }
            return nil
        }
    }
}
