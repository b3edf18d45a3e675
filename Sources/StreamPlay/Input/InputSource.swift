/// A producer of encoded bytes: reads a resource on its own thread into a ``ByteRing``.
///
/// An input never decodes and never blocks its caller; the decoder thread drives it with
/// ``start(at:generation:)`` and learns what happened from ``InputControl``.
protocol InputSource: AnyObject, Sendable {
    /// Shared state: restart commands in, facts and outcome out.
    var control: InputControl { get }
    /// Starts reading at `offset`, discarding any transfer in progress. Bytes of the new
    /// request are written to the ring under `generation`. Returns at once.
    func start(at offset: Int, generation: Int)
    /// Ends the transfer and the thread, and waits for the thread to finish.
    func stop()
    /// The segments of an input that reads a media playlist (HLS), which seeks by segment
    /// rather than by byte; `nil` for a single resource.
    var segmentedPlaylist: HLSMediaPlaylist? { get }
    /// Starts reading at the segment at `index` of ``segmentedPlaylist``. Returns at once.
    func start(atSegment index: Int, generation: Int)
}

extension InputSource {
    var segmentedPlaylist: HLSMediaPlaylist? { nil }
    func start(atSegment index: Int, generation: Int) {
        preconditionFailure("start(atSegment:) on an input without segments")
    }
}

/// How a generation of an input ended.
enum InputOutcome: Sendable, Equatable {
    /// All bytes were delivered.
    case finished
    /// The transfer failed.
    case failed(PlayerError)
}
