/// One entry of a ``Player``'s play queue.
///
/// Items keep their ``id`` while the queue around them changes, so a user interface can follow
/// an entry through inserts and removals the way MPD's song ids do.
public struct QueueItem: Sendable, Equatable, Identifiable, CustomStringConvertible {
    /// Unique within the player that made it.
    public let id: Int
    /// What plays.
    public let location: MediaLocation
    /// Seconds into the track where it starts.
    public let startTime: Double
    /// Seconds of it played at most, or `nil` for all of it.
    public let length: Double?

    init(id: Int, location: MediaLocation, startTime: Double = 0, length: Double? = nil) {
        self.id = id
        self.location = location
        self.startTime = startTime
        self.length = length
    }

    /// The location, safe to show.
    public var description: String { location.description }
}
