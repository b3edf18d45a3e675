import Synchronization

/// Volume applied to samples by sinks that have no mixer of their own (WAV, null).
///
/// At 1.0 the samples pass untouched, so a file written at full volume equals the decode
/// bit for bit.
struct SoftwareVolume: ~Copyable {
    /// The gain in 1/65536 steps, read lock-free on the decoder thread.
    private let gain = Atomic<Int>(65536)

    func set(_ volume: Double) {
        let clamped = volume.isFinite ? min(max(volume, 0), 16) : 1
        gain.store(Int((clamped * 65536).rounded()), ordering: .relaxed)
    }

    /// `true` when samples pass unchanged.
    var isUnity: Bool { gain.load(ordering: .relaxed) == 65536 }

    /// Scales the s16 samples of `pcm` in place, unless the gain is 1.
    func apply(to pcm: UnsafeMutableRawBufferPointer) {
        let gain = gain.load(ordering: .relaxed)
        guard gain != 65536 else { return }
        let samples = pcm.bindMemory(to: Int16.self)
        for index in samples.indices {
            let scaled = (Int(samples[index]) * gain) >> 16
            samples[index] = Int16(clamping: scaled)
        }
    }
}
