import CStreamPlayMPRISShim
import CSystemd
import FoundationEssentials
import StreamPlay

/// The values of the `org.mpris.MediaPlayer2.Player` properties that change, as MPRIS spells
/// them, made from an ``MPRISPlayerView`` (Position is read live instead: it changes all the
/// time and is never signalled).
struct MPRISSnapshot: Sendable, Equatable {
    /// The track id of no track, as the MPRIS specification names it.
    static let noTrack = "/org/mpris/MediaPlayer2/TrackList/NoTrack"

    /// "Playing", "Paused" or "Stopped".
    var playbackStatus: String
    /// An object path unique to the queue item (`mpris:trackid`).
    var trackID: String
    /// The track's length in microseconds (`mpris:length`), when known.
    var length: Int64?
    var title: String?
    var artist: String?
    var album: String?
    /// `xesam:url`: a file URL, or the stream URL without query or credentials.
    var url: String?
    /// `mpris:artUrl`: the cover written to a file (see ``MPRISArtworkCache``).
    var artURL: String?
    /// `xesam:trackNumber`.
    var trackNumber: Int?
    var volume: Double
    var canGoNext: Bool
    var canGoPrevious: Bool
    var canPlay: Bool
    var canPause: Bool
    var canSeek: Bool
    /// The queue as `org.mpris.MediaPlayer2.TrackList` shows it.
    var tracks: [MPRISTrack]

    /// - Parameter artURL: where the cover in `view`'s metadata was written, if it was.
    init(_ view: MPRISPlayerView, artURL: String? = nil) {
        playbackStatus = Self.playbackStatus(view.state)
        let item = view.item
        trackID = item.map(Self.trackID) ?? Self.noTrack
        length = view.duration.flatMap { $0.isFinite && $0 >= 0 ? Int64(($0 * 1_000_000).rounded()) : nil }
        title = view.metadata?.title ?? item.flatMap { Self.fileName(of: $0.location) }
        artist = view.metadata?.artist
        album = view.metadata?.album
        trackNumber = view.metadata?.trackNumber
        self.artURL = artURL
        url = item.map { Self.url(of: $0.location) }
        volume = view.volume
        let index = view.currentIndex
        canGoNext = index.map { $0 + 1 < view.queueCount } ?? false
        canGoPrevious = index.map { $0 > 0 && $0 - 1 < view.queueCount } ?? false
        canPlay = item != nil || view.queueCount > 0
        canPause = canPlay
        canSeek = item != nil && length != nil
        tracks = view.queue.map { MPRISTrack(id: Self.trackID($0), title: Self.fileName(of: $0.location), url: Self.url(of: $0.location)) }
    }

    /// The MPRIS status of a player state: buffering counts as playing, as in other players.
    static func playbackStatus(_ state: PlayerState) -> String {
        switch state {
        case .connecting, .buffering, .playing: "Playing"
        case .paused: "Paused"
        case .idle, .ended, .failed: "Stopped"
        }
    }

    /// The object path that names `item` (unique within the player, as the item's id is).
    static func trackID(_ item: QueueItem) -> String { "/org/streamplay/track/\(item.id)" }

    /// Which properties differ from `old` (all that exist when there was none).
    func changes(since old: MPRISSnapshot?) -> MPRISChanges {
        guard let old else { return .all }
        var changes: MPRISChanges = []
        if playbackStatus != old.playbackStatus { changes.insert(.playbackStatus) }
        if trackID != old.trackID || length != old.length || title != old.title || artist != old.artist
            || album != old.album || url != old.url || artURL != old.artURL || trackNumber != old.trackNumber {
            changes.insert(.metadata)
        }
        if volume != old.volume { changes.insert(.volume) }
        if canGoNext != old.canGoNext { changes.insert(.canGoNext) }
        if canGoPrevious != old.canGoPrevious { changes.insert(.canGoPrevious) }
        if canPlay != old.canPlay { changes.insert(.canPlay) }
        if canPause != old.canPause { changes.insert(.canPause) }
        if canSeek != old.canSeek { changes.insert(.canSeek) }
        if tracks != old.tracks { changes.insert(.trackList) }
        return changes
    }

    private static func url(of location: MediaLocation) -> String {
        switch location {
        case .remote: location.description
        case .file(let path): URL(filePath: path).absoluteString
        }
    }

    /// The last part of the path, as a title when the stream names none.
    private static func fileName(of location: MediaLocation) -> String? {
        let path = location.description.split(separator: "?", maxSplits: 1).first.map(String.init) ?? ""
        guard let last = path.split(separator: "/").last, !last.isEmpty, !last.contains(":") else { return nil }
        return percentDecoded(String(last))
    }

    /// `text` with its `%XX` escapes decoded as UTF-8 (a malformed escape stays as it is).
    static func percentDecoded(_ text: String) -> String {
        var bytes: [UInt8] = []
        let utf8 = Array(text.utf8)
        var index = 0
        while index < utf8.count {
            if utf8[index] == UInt8(ascii: "%"), index + 2 < utf8.count,
               let value = UInt8(String(decoding: utf8[index + 1...index + 2], as: UTF8.self), radix: 16) {
                bytes.append(value)
                index += 3
            } else {
                bytes.append(utf8[index])
                index += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// Properties whose PropertiesChanged a snapshot's change calls for (the bits the C shim reads).
struct MPRISChanges: OptionSet, Sendable {
    let rawValue: UInt32
    static let playbackStatus = MPRISChanges(rawValue: UInt32(SP_MPRIS_CHANGED_PLAYBACK_STATUS))
    static let metadata = MPRISChanges(rawValue: UInt32(SP_MPRIS_CHANGED_METADATA))
    static let volume = MPRISChanges(rawValue: UInt32(SP_MPRIS_CHANGED_VOLUME))
    static let canGoNext = MPRISChanges(rawValue: UInt32(SP_MPRIS_CHANGED_CAN_GO_NEXT))
    static let canGoPrevious = MPRISChanges(rawValue: UInt32(SP_MPRIS_CHANGED_CAN_GO_PREVIOUS))
    static let canPlay = MPRISChanges(rawValue: UInt32(SP_MPRIS_CHANGED_CAN_PLAY))
    static let canPause = MPRISChanges(rawValue: UInt32(SP_MPRIS_CHANGED_CAN_PAUSE))
    static let canSeek = MPRISChanges(rawValue: UInt32(SP_MPRIS_CHANGED_CAN_SEEK))
    /// The track list, which is signalled by TrackListReplaced.
    static let trackList = MPRISChanges(rawValue: UInt32(SP_MPRIS_CHANGED_TRACK_LIST))
    static let all: MPRISChanges = [.playbackStatus, .metadata, .volume, .canGoNext, .canGoPrevious, .canPlay,
                                    .canPause, .canSeek, .trackList]
}

/// A queue item as the track list shows it: its id, and the title and URL known before it plays
/// (the current track's tags come from the Player's metadata).
struct MPRISTrack: Equatable, Sendable {
    let id: String
    let title: String?
    let url: String
}
