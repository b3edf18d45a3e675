/// The last bytes written to a sound server, kept so that what the server held unplayed when it
/// went away can be written again to the server that replaces it.
///
/// A ring of fixed capacity: appending past it drops the oldest bytes. Used under the
/// PulseAudio sink's mainloop lock.
struct PlaybackHistory {
    let capacity: Int
    private var storage: [UInt8]
    private var end = 0
    private(set) var count = 0

    init(capacity: Int) {
        self.capacity = max(capacity, 0)
        storage = [UInt8](repeating: 0, count: self.capacity)
    }

    /// Keeps `bytes` as the newest, dropping the oldest beyond the capacity.
    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard capacity > 0 else { return }
        let kept = bytes.count > capacity ? UnsafeRawBufferPointer(rebasing: bytes[(bytes.count - capacity)...]) : bytes
        storage.withUnsafeMutableBytes { ring in
            var remaining = kept
            while !remaining.isEmpty {
                let chunk = min(remaining.count, capacity - end)
                ring.baseAddress!.advanced(by: end).copyMemory(from: remaining.baseAddress!, byteCount: chunk)
                end = (end + chunk) % capacity
                remaining = UnsafeRawBufferPointer(rebasing: remaining[chunk...])
            }
        }
        count = min(capacity, count + kept.count)
    }

    /// The newest `length` bytes (all of them when fewer are held), oldest first.
    func suffix(_ length: Int) -> [UInt8] {
        let taken = min(max(length, 0), count)
        let start = (end - taken + capacity) % max(capacity, 1)
        if start + taken <= capacity { return Array(storage[start..<(start + taken)]) }
        return Array(storage[start...]) + Array(storage[..<(start + taken - capacity)])
    }

    mutating func removeAll() {
        end = 0
        count = 0
    }

    /// The bytes a server had not played when it went away: its latency at the last write,
    /// less what it played since (nothing while corked), in whole frames, and at most `held`.
    static func unplayedBytes(latencyBytes: Int, playedSeconds: Double, bytesPerSecond: Int,
                              bytesPerFrame: Int, held: Int) -> Int {
        let played = Int(max(playedSeconds, 0) * Double(bytesPerSecond))
        let unplayed = min(max(latencyBytes - played, 0), held)
        return unplayed - unplayed % max(bytesPerFrame, 1)
    }
}
