#if canImport(Glibc)
import Glibc
#endif

/// Writes 16-bit PCM to a RIFF WAVE file as fast as the decoder delivers it.
///
/// The header's sizes are patched on ``close()``; a file cut short by a crash still carries
/// its audio. One file holds one format: a change of format after audio was written fails.
///
/// Only the decoder thread writes; the player closes the sink after that thread has ended, so
/// the file state needs no lock (the volume is atomic).
public final class WAVFileSink: AudioSink, @unchecked Sendable {
    private let path: String
    private var state = State()
    private let volume = SoftwareVolume()

    private struct State {
        var file: UnsafeMutablePointer<FILE>?
        var format: AudioFormat?
        var dataBytes = 0
        var scratch: UnsafeMutableRawBufferPointer?
    }

    /// Creates a sink that will write `path` (created or truncated at the first ``open(format:)``).
    public init(path: String) {
        self.path = path
    }

    deinit {
        close()
    }

    /// Always `false`: the file takes audio at decoding speed.
    public var isRealTime: Bool { false }

    /// Creates the file and writes the header for `format`.
    public func open(format: AudioFormat) throws(PlayerError) {
        let result: PlayerError? = withState { state in
            if let current = state.format {
                if current == format { return nil }
                if state.dataBytes > 0 {
                    return .outputFailed(reason: "\(path) holds \(current) audio; cannot append \(format)")
                }
            }
            if state.file == nil {
                guard let file = fopen(path, "wb") else {
                    return .outputFailed(reason: "cannot create \(path): \(String(cString: strerror(errno)))")
                }
                state.file = file
            }
            state.format = format
            writeHeader(state: &state)
            return nil
        }
        if let result { throw result }
    }

    /// Appends `pcm` to the file.
    public func write(_ pcm: UnsafeRawBufferPointer) throws(PlayerError) -> Int {
        let failure: PlayerError? = withState { state in
            guard let file = state.file else { return .outputFailed(reason: "\(path) is not open") }
            var bytes = pcm
            if !volume.isUnity, let scratch = scaledCopy(of: pcm, state: &state) { bytes = UnsafeRawBufferPointer(scratch) }
            guard fwrite(bytes.baseAddress, 1, bytes.count, file) == bytes.count else {
                return .outputFailed(reason: "writing \(path): \(String(cString: strerror(errno)))")
            }
            state.dataBytes += bytes.count
            return nil
        }
        if let failure { throw failure }
        return pcm.count
    }

    private func withState<Result>(_ body: (inout State) -> Result) -> Result {
        body(&state)
    }

    /// The file has no notion of playing.
    public func start() {}
    /// The file has no notion of pausing.
    public func pause() {}
    /// Audio already written stays in the file.
    public func flush() {}

    /// Flushes buffered writes to the file and patches the header.
    public func drain() throws(PlayerError) -> Bool {
        withState { state in
            writeHeader(state: &state)
            if let file = state.file { fflush(file) }
        }
        return true
    }

    /// Patches the header and closes the file.
    public func close() {
        withState { state in
            writeHeader(state: &state)
            if let file = state.file { fclose(file) }
            state.file = nil
            state.scratch?.deallocate()
            state.scratch = nil
        }
    }

    /// Unbounded: audio is taken as fast as it comes.
    public var queueCapacityFrames: Int { .max }
    /// Writes never block.
    public func interrupt() {}
    /// Writes never block.
    public func clearInterrupt() {}
    /// Written audio counts as heard.
    public var latencyFrames: Int { 0 }

    /// Scales samples before they are written (1 keeps them bit-exact).
    public func setVolume(_ volume: Double) {
        self.volume.set(volume)
    }

    private func scaledCopy(of pcm: UnsafeRawBufferPointer, state: inout State) -> UnsafeMutableRawBufferPointer? {
        guard let scratch = state.scratch, scratch.count >= pcm.count else {
            state.scratch?.deallocate()
            state.scratch = .allocate(byteCount: max(pcm.count, 16384), alignment: 16)
            return scaledCopy(of: pcm, state: &state)
        }
        let slice = UnsafeMutableRawBufferPointer(rebasing: scratch[..<pcm.count])
        slice.copyMemory(from: pcm)
        volume.apply(to: slice)
        return slice
    }

    /// Writes (or rewrites) the 44-byte canonical header, then returns to the end of the file.
    private func writeHeader(state: inout State) {
        guard let file = state.file, let format = state.format else { return }
        var header = [UInt8]()
        func append32(_ value: Int) { withUnsafeBytes(of: UInt32(truncatingIfNeeded: value).littleEndian) { header += $0 } }
        func append16(_ value: Int) { withUnsafeBytes(of: UInt16(truncatingIfNeeded: value).littleEndian) { header += $0 } }
        let dataBytes = min(state.dataBytes, Int(UInt32.max) - 36)
        header += Array("RIFF".utf8); append32(36 + dataBytes); header += Array("WAVE".utf8)
        header += Array("fmt ".utf8); append32(16); append16(1); append16(format.channels)
        append32(format.sampleRate); append32(format.sampleRate * format.bytesPerFrame)
        append16(format.bytesPerFrame); append16(16)
        header += Array("data".utf8); append32(dataBytes)
        fseek(file, 0, SEEK_SET)
        fwrite(header, 1, header.count, file)
        fseek(file, 0, SEEK_END)
    }
}
