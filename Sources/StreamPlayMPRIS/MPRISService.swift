import StreamPlay
import Synchronization

/// Publishes a `Player` (StreamPlay) on the D-Bus session bus as an MPRIS 2 media player, so
/// that desktop media controls, media keys and `playerctl` can see and drive it.
///
/// ```swift
/// let player = Player()
/// let mpris = try MPRISService(player: player, name: "myplayer")
/// player.play(try MediaLocation(parsing: "https://example.org/track.mp3"))
/// ```
///
/// The service implements `org.mpris.MediaPlayer2` and `org.mpris.MediaPlayer2.Player`:
/// playback status, metadata (track id, length, title, artist, album, track number, URL, and the
/// cover as `mpris:artUrl`, a file the service writes), position, volume
/// (read and write), rate (1.0 only) and the `Can*` flags; Play, Pause, PlayPause, Stop, Next,
/// Previous, Seek, SetPosition and OpenUri; the `Seeked` and `PropertiesChanged` signals. The
/// queue is `org.mpris.MediaPlayer2.TrackList`: `Tracks`, GetTracksMetadata, AddTrack,
/// RemoveTrack and GoTo, and `TrackListReplaced` whenever it changes.
///
/// The bus connection lives on a thread of its own (sd-bus, which is not thread-safe, is used
/// on that thread only); commands from clients run there. ``MPRISService/stop()`` (or releasing the
/// service) takes the name off the bus and ends the thread.
public final class MPRISService: Sendable {
    /// The bus name the service owns, e.g. `org.mpris.MediaPlayer2.streamplay`, or the same
    /// with `.instance<pid>` when another player had that name.
    public let busName: String
    private let shared: MPRISSharedState
    private let thread: Mutex<EngineThread?>
    private let events: Task<Void, Never>

    /// Connects to the session bus (`DBUS_SESSION_BUS_ADDRESS`, or the user's bus) and publishes
    /// `player` as `org.mpris.MediaPlayer2.NAME`. Returns once the name is owned.
    ///
    /// - Parameters:
    ///   - player: the player to publish and to control.
    ///   - name: the last element of the bus name: letters, digits, `_` and `-`, not starting
    ///     with a digit.
    ///   - identity: the name shown to the user (`Identity`).
    ///   - artworkDirectory: where covers are written for `mpris:artUrl`; `nil` for
    ///     `$XDG_CACHE_HOME/streamplay/artwork` (or `~/.cache/streamplay/artwork`). It keeps
    ///     the 256 covers used last.
    /// - Throws: ``MPRISError`` when there is no session bus, the name is taken (with its
    ///   instance suffix too), or `name` is not valid. Playback does not depend on it.
    public init(player: Player, name: String = "streamplay", identity: String = "StreamPlay",
                artworkDirectory: String? = nil) throws(MPRISError) {
        guard Self.isValidName(name) else { throw MPRISError(.invalidName, name) }
        let shared = try MPRISSharedState()
        let outcome = Mutex<Result<String, MPRISError>?>(nil)
        let started = ThreadSignal()
        let thread = EngineThread(name: "sp-mpris") {
            let connection = MPRISBusConnection(shared: shared, player: player, name: name, identity: identity,
                                                artworkDirectory: artworkDirectory)
            connection.run { result in
                outcome.withEngineLock { $0 = result }
                started.signal()
            }
        }
        var result: Result<String, MPRISError>?
        while result == nil {
            started.wait(timeout: 1)
            result = outcome.withEngineLock { $0 }
        }
        switch result! {
        case .failure(let error):
            thread.join()
            throw error
        case .success(let busName):
            self.busName = busName
        }
        self.shared = shared
        self.thread = Mutex(thread)
        let stream = player.events
        events = Task {
            for await event in stream { shared.note(event) }
        }
    }

    deinit { stop() }

    /// Takes the player off the bus and ends the service's thread. Returns once it has ended.
    public func stop() {
        events.cancel()
        shared.requestStop()
        let thread = self.thread.withEngineLock { thread in
            defer { thread = nil }
            return thread
        }
        thread?.join()
    }

    /// Whether `name` can be the last element of a bus name.
    static func isValidName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, !("0"..."9").contains(first), name.utf8.count <= 200 else { return false }
        return name.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
                || ("0"..."9").contains(scalar) || scalar == "_" || scalar == "-")
        }
    }
}
