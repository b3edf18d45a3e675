/// How a play has coped with the network, for a status display or a log.
public struct PlaybackStatistics: Sendable, Equatable {
    /// Times playback paused because the input ran dry (see ``PlayerEvent/rebuffered(seconds:)``).
    public var rebufferCount: Int
    /// Seconds spent rebuffering, in all.
    public var rebufferSeconds: Double
    /// Times the input reconnected after a dropped or stalled connection.
    public var reconnectCount: Int
    /// Times the sound server itself ran out of audio (PulseAudio only), since the output opened.
    public var underflowCount: Int

    /// Creates statistics.
    public init(rebufferCount: Int = 0, rebufferSeconds: Double = 0, reconnectCount: Int = 0, underflowCount: Int = 0) {
        self.rebufferCount = rebufferCount
        self.rebufferSeconds = rebufferSeconds
        self.reconnectCount = reconnectCount
        self.underflowCount = underflowCount
    }
}
