import CStreamPlayMPRISShim
import CSystemd
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import Logging
import StreamPlay

/// The session-bus connection of an ``MPRISService``, and the loop that serves it.
///
/// Thread confinement: the sd-bus handle, the MPRIS object and every call into them live on
/// the service's own thread (`run(started:)` is its body) and nowhere else; sd-bus is not
/// thread-safe. Other threads reach this loop only through `MPRISSharedState` (under its lock)
/// and the wake-up eventfd. Client commands are carried out on this thread too.
final class MPRISBusConnection {
    private let shared: MPRISSharedState
    private let player: Player
    private let requestedName: String
    private let identity: String
    private let logger = Logger(label: "streamplay.mpris")
    private var bus: OpaquePointer?
    private var object: OpaquePointer?
    private var published: MPRISSnapshot?
    private var artwork: MPRISArtworkCache

    init(shared: MPRISSharedState, player: Player, name: String, identity: String, artworkDirectory: String?) {
        self.shared = shared
        self.player = player
        requestedName = name
        self.identity = identity
        artwork = MPRISArtworkCache(directory: artworkDirectory)
    }

    /// Connects, publishes, tells `started` the outcome, then serves until the service stops.
    func run(started: (Result<String, MPRISError>) -> Void) {
        let name: String
        do {
            name = try connect()
        } catch {
            close()
            started(.failure(error))
            return
        }
        started(.success(name))
        logger.debug("MPRIS: published as \(name)")
        serve()
        if let bus { sd_bus_release_name(bus, name) }
        close()
    }

    private func connect() throws(MPRISError) -> String {
        var connection: OpaquePointer?
        let opened = sd_bus_open_user(&connection)
        guard opened >= 0, let connection else { throw MPRISError(.noSessionBus, Self.message(opened)) }
        bus = connection
        var callbacks = sp_mpris_callbacks(
            context: Unmanaged.passUnretained(self).toOpaque(),
            command: { context, command, value, text in
                Unmanaged<MPRISBusConnection>.fromOpaque(context!).takeUnretainedValue()
                    .handle(command, value: value, text: text.map { String(cString: $0) })
            },
            position_us: { context in
                Unmanaged<MPRISBusConnection>.fromOpaque(context!).takeUnretainedValue().positionMicroseconds()
            },
            set_volume: { context, volume in
                Unmanaged<MPRISBusConnection>.fromOpaque(context!).takeUnretainedValue().setVolume(volume)
            })
        let attached = sp_mpris_attach(connection, &callbacks, identity, &object)
        guard attached >= 0 else { throw MPRISError(.busFailure, Self.message(attached)) }
        publish()
        let base = "org.mpris.MediaPlayer2.\(requestedName)"
        var requested = sd_bus_request_name(connection, base, 0)
        if requested == -EEXIST {
            // Another player has the name: this one takes an instance name, as the spec suggests.
            let instance = "\(base).instance\(getpid())"
            requested = sd_bus_request_name(connection, instance, 0)
            if requested >= 0 { return instance }
            if requested == -EEXIST { throw MPRISError(.nameTaken, instance) }
        }
        guard requested >= 0 else { throw MPRISError(.busFailure, Self.message(requested)) }
        return base
    }

    private func serve() {
        guard let bus else { return }
        while !shared.stopRequested {
            var processed: Int32
            repeat {
                processed = sd_bus_process(bus, nil)
            } while processed > 0
            if processed < 0 {
                logger.warning("MPRIS: the session bus connection failed (\(Self.message(processed))); MPRIS is off")
                return
            }
            publish()
            for seconds in shared.takeSeeks() {
                sp_mpris_emit_seeked(object, Self.microseconds(seconds))
            }
            sd_bus_flush(bus)
            // Woken by the player's events and by stop; the timeout catches a volume set elsewhere.
            if sp_mpris_wait(bus, shared.wakeDescriptor, 500_000) < 0 { return }
        }
    }

    /// Sets the properties from the player and signals those that changed.
    private func publish() {
        guard let object else { return }
        let view = MPRISPlayerView(player: player)
        let snapshot = MPRISSnapshot(view, artURL: artwork.url(for: view.metadata?.artwork))
        let changes = snapshot.changes(since: published)
        guard !changes.isEmpty else { return }
        let strings = [snapshot.playbackStatus, snapshot.trackID, snapshot.title, snapshot.artist, snapshot.album,
                       snapshot.url, snapshot.artURL].map { $0.flatMap { strdup($0) } }
        defer { for string in strings { free(string) } }
        var state = sp_mpris_state(
            playback_status: strings[0], track_id: strings[1], length_us: snapshot.length ?? -1,
            title: strings[2], artist: strings[3], album: strings[4], url: strings[5], art_url: strings[6],
            track_number: Int32(clamping: snapshot.trackNumber ?? 0), volume: snapshot.volume,
            can_go_next: snapshot.canGoNext ? 1 : 0, can_go_previous: snapshot.canGoPrevious ? 1 : 0,
            can_play: snapshot.canPlay ? 1 : 0, can_pause: snapshot.canPause ? 1 : 0, can_seek: snapshot.canSeek ? 1 : 0)
        sp_mpris_set_state(object, &state)
        if changes.contains(.trackList) { setTracks(snapshot.tracks) }
        // The first values are published before the name is taken: no client is told of them.
        if published != nil {
            sp_mpris_emit_changed(object, changes.rawValue)
            if changes.contains(.trackList) { sp_mpris_emit_track_list_replaced(object) }
        }
        published = snapshot
    }

    /// Hands the track list to the shim, which copies it.
    private func setTracks(_ tracks: [MPRISTrack]) {
        let ids = tracks.map { strdup($0.id) }
        let titles = tracks.map { $0.title.flatMap { strdup($0) } }
        let urls = tracks.map { strdup($0.url) }
        defer { for string in ids + titles + urls { free(string) } }
        let set = ids.map { UnsafePointer($0) }.withUnsafeBufferPointer { idPointers in
            titles.map { $0.map { UnsafePointer($0) } }.withUnsafeBufferPointer { titlePointers in
                urls.map { UnsafePointer($0) }.withUnsafeBufferPointer { urlPointers in
                    sp_mpris_set_tracks(object, idPointers.baseAddress, titlePointers.baseAddress, urlPointers.baseAddress,
                                        tracks.count)
                }
            }
        }
        if set < 0 { logger.warning("MPRIS: the track list could not be set (\(Self.message(set)))") }
    }

    private func close() {
        sp_mpris_free(object)
        object = nil
        if let bus { sd_bus_flush_close_unref(bus) }
        bus = nil
    }

    // MARK: Calls from clients (on this thread, from sd_bus_process)

    private func handle(_ command: Int32, value: Int64, text: String?) -> Int32 {
        let view = MPRISPlayerView(player: player)
        let plan: MPRISCommandPlan
        switch sp_mpris_command(UInt32(command)) {
        case SP_MPRIS_PLAY: plan = .play(view)
        case SP_MPRIS_PAUSE: plan = .pause(view)
        case SP_MPRIS_PLAY_PAUSE: plan = .playPause(view)
        case SP_MPRIS_STOP: plan = .stop
        case SP_MPRIS_NEXT: plan = .next
        case SP_MPRIS_PREVIOUS: plan = .previous
        case SP_MPRIS_SEEK: plan = .seek(by: value, from: player.position ?? 0, view)
        case SP_MPRIS_SET_POSITION: plan = .setPosition(trackID: text ?? "", position: value, view)
        case SP_MPRIS_OPEN_URI:
            guard let location = try? MediaLocation(parsing: text ?? "") else {
                return Int32(SP_MPRIS_INVALID_ARGUMENT.rawValue)
            }
            player.play(location)
            return Int32(SP_MPRIS_DONE.rawValue)
        case SP_MPRIS_ADD_TRACK:
            // The shim found the position: the index to insert at, and whether it plays at once.
            guard let location = try? MediaLocation(parsing: text ?? "") else {
                return Int32(SP_MPRIS_INVALID_ARGUMENT.rawValue)
            }
            let index = min(Int(value >> 1), player.queue.count)
            _ = player.insert(location, at: index)
            if value & 1 != 0 { player.play(itemAt: index) }
            publish()
            return Int32(SP_MPRIS_DONE.rawValue)
        case SP_MPRIS_REMOVE_TRACK:
            player.remove(at: Int(value))
            publish()
            return Int32(SP_MPRIS_DONE.rawValue)
        case SP_MPRIS_GO_TO:
            player.play(itemAt: Int(value))
            return Int32(SP_MPRIS_DONE.rawValue)
        case SP_MPRIS_RAISE, SP_MPRIS_QUIT:
            // CanRaise and CanQuit are false: the specification asks these to do nothing.
            plan = .ignore
        default:
            return Int32(SP_MPRIS_NOT_SUPPORTED.rawValue)
        }
        plan.apply(to: player)
        return Int32(SP_MPRIS_DONE.rawValue)
    }

    private func positionMicroseconds() -> Int64 {
        if player.state == .idle { return 0 }
        return Self.microseconds(player.position ?? 0)
    }

    private func setVolume(_ requested: Double) {
        guard let volume = MPRISCommandPlan.volume(requested) else { return }
        player.volume = volume
        publish()
    }

    static func microseconds(_ seconds: Double) -> Int64 {
        seconds.isFinite ? Int64((max(seconds, 0) * 1_000_000).rounded()) : 0
    }

    private static func message(_ code: Int32) -> String {
        String(cString: strerror(-code))
    }
}
