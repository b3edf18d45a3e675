/// Something a ``Player`` reports on its ``Player/events`` streams.
public enum PlayerEvent: Sendable, Equatable {
    /// The state changed.
    case stateChanged(PlayerState)
    /// The decoder found the PCM format of the track.
    case formatKnown(AudioFormat)
    /// The track's length in seconds became known.
    case durationKnown(Double)
    /// Progress towards the prebuffer needed to start, 0 to 1.
    case bufferingProgress(Double)
    /// A seek was carried out; audio continues from this position in seconds.
    case seeked(to: Double)
    /// A seek could not be carried out (a live stream); playback goes on where it was.
    case seekRefused(PlayerError)
    /// The stream said what it plays: an internet radio station's title (ICY), or the title,
    /// artist and album of an MP3's ID3v2 tag, read as the track starts.
    case metadata(StreamMetadata)
    /// The input ran dry while playing, playback paused to refill for this many seconds, and
    /// goes on now (the state went to ``PlayerState/buffering`` and back).
    case rebuffered(seconds: Double)
    /// Another item of the queue is now the current one, at `index` (after the previous one
    /// ended, or by ``Player/next()``, ``Player/previous()`` or ``Player/play(itemAt:)``).
    case currentItemChanged(index: Int, item: QueueItem)
    /// An item of the queue failed; the queue went on with the next one. (The last item's
    /// failure ends the play in ``PlayerState/failed(_:)`` instead.)
    case itemFailed(QueueItem, PlayerError)
}
