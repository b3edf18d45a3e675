import StreamPlay

/// What the MPRIS properties are made from: a `Player`'s state, queue, tags and volume, read
/// at one moment. A plain value, so the mapping to MPRIS can be tested without a player or bus.
struct MPRISPlayerView: Sendable, Equatable {
    var state: PlayerState
    var currentIndex: Int?
    var queueCount: Int
    /// The whole queue, for the track list (empty in views made without it).
    var queue: [QueueItem]
    var item: QueueItem?
    var metadata: StreamMetadata?
    var duration: Double?
    var volume: Double

    init(state: PlayerState, currentIndex: Int? = nil, queueCount: Int = 0, queue: [QueueItem] = [],
         item: QueueItem? = nil, metadata: StreamMetadata? = nil, duration: Double? = nil, volume: Double = 1) {
        self.state = state
        self.currentIndex = currentIndex
        self.queueCount = queueCount
        self.queue = queue
        self.item = item
        self.metadata = metadata
        self.duration = duration
        self.volume = volume
    }

    init(player: Player) {
        let queue = player.queue
        let index = player.currentIndex
        self.init(state: player.state, currentIndex: index, queueCount: queue.count, queue: queue,
                  item: index.flatMap { queue.indices.contains($0) ? queue[$0] : nil },
                  metadata: player.metadata, duration: player.duration, volume: player.volume)
    }
}
