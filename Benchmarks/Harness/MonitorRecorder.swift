import Foundation
import StreamPlay
import Synchronization

/// Records a PulseAudio sink's monitor with `parec` and maps every recorded frame to the time
/// it was played.
///
/// The monitor hands data over in batches, so arrival times alone are late by up to a batch.
/// The sample clock is steady, though: with T0 the smallest (arrival − frames so far / rate)
/// over all reads, frame i was played at T0 + i / rate. That offset is the same for every
/// player measured, and the pacat floor shows what is left of it.
final class MonitorRecorder: Sendable {
    let sink: String
    let rate: Int
    static let channels = 2

    private struct Recording {
        /// Interleaved s16 samples from frame `baseFrame` on.
        var samples: [Int16] = []
        var baseFrame = 0
        var framesReceived = 0
        var originTime = Double.infinity
        /// The largest (arrival − frames / rate): far above `originTime` when frames went missing.
        var latestOrigin = -Double.infinity
        /// Per read: the frame count after it and when it arrived (for ``arrivalTime(ofFrame:)``).
        var arrivals: [(frameEnd: Int, time: Double)] = []
        var finished = false
        var rate = 44100
    }

    private let recording: Mutex<Recording>
    private let reader: ChildProcessPipe
    private let keepAlive: ChildProcess

    /// Starts recording `sink.monitor`, and a stream of zeros that keeps the sink running (an
    /// idle null sink is suspended and its monitor falls silent, which would break the clock).
    /// - Parameter server: the sound server (as in `PULSE_SERVER`); nil: `PULSE_SERVER`'s.
    init(sink: String, server: String? = nil, rate: Int = 44100) throws {
        self.sink = sink
        self.rate = rate
        var initial = Recording()
        initial.rate = rate
        recording = Mutex(initial)
        let format = ["--raw", "--format=s16le", "--rate=\(rate)", "--channels=\(Self.channels)"]
            + (server.map { ["--server=\($0)"] } ?? [])
        // Its small latency also keeps the sink's blocks small: a null sink mixes up to one
        // block ahead of its clock and hands that to the monitor at once, so the block size
        // bounds how early the monitor can see a sample.
        keepAlive = try ChildProcess(["pacat"] + format + ["--latency-msec=2", "-d", sink, "/dev/zero"])
        // A sink without a stream mixes in blocks of seconds: let the small latency take hold
        // before recording, or the monitor's first block would come seconds ahead of the clock.
        MonotonicClock.sleep(0.3)
        reader = try ChildProcessPipe(["parec", "-d", "\(sink).monitor", "--latency-msec=5"] + format)
        let thread = Thread { [self] in readLoop() }
        thread.name = "bench-recorder"
        thread.start()
        let deadline = MonotonicClock.now() + 10
        while framesReceived < rate / 4 {
            guard MonotonicClock.now() < deadline else {
                throw HarnessError("parec delivered no audio from \(sink).monitor within 10 s")
            }
            MonotonicClock.sleep(0.01)
        }
        // The clock is read from steady delivery only, not from the start's first batches.
        MonotonicClock.sleep(0.2)
        recording.withEngineLock { state in
            state.originTime = .infinity
            state.latestOrigin = -.infinity
            state.arrivals.removeAll()
        }
        MonotonicClock.sleep(0.05)
    }

    /// Stops parec and the stream of zeros; the reader thread ends at the pipe's end.
    func stop() {
        reader.process.terminate(grace: 1)
        keepAlive.terminate(grace: 1)
    }

    private func readLoop() {
        let chunk = 4096
        var buffer = [UInt8](repeating: 0, count: chunk)
        var carry: [UInt8] = []
        while true {
            let count = buffer.withUnsafeMutableBytes { read(reader.fd, $0.baseAddress, chunk) }
            let arrival = MonotonicClock.now()
            if count <= 0 { break }
            carry.append(contentsOf: buffer[0..<count])
            let whole = carry.count / (2 * Self.channels) * (2 * Self.channels)
            guard whole > 0 else { continue }
            recording.withEngineLock { state in
                carry.withUnsafeBytes { raw in
                    let samples = raw.bindMemory(to: Int16.self)
                    state.samples.append(contentsOf: samples[0..<(whole / 2)])
                }
                state.framesReceived += whole / (2 * Self.channels)
                let origin = arrival - Double(state.framesReceived) / Double(rate)
                state.originTime = min(state.originTime, origin)
                state.latestOrigin = max(state.latestOrigin, origin)
                state.arrivals.append((state.framesReceived, arrival))
            }
            carry.removeFirst(whole)
        }
        recording.withEngineLock { $0.finished = true }
    }

    /// How far the arrivals strayed from the sample clock, in seconds: the batching of the
    /// monitor (a few ms), or more when frames were lost and the clock broke.
    var clockSpread: Double { recording.withEngineLock { $0.latestOrigin - $0.originTime } }

    /// When the read that carried `frame` arrived: a bound on when it was played that holds
    /// even where the sample clock does not (a busy machine, a sink that rewound).
    func arrivalTime(ofFrame frame: Int) -> Double? {
        recording.withEngineLock { state in
            let index = state.arrivals.partitionPoint { $0.frameEnd > frame }
            return index < state.arrivals.count ? state.arrivals[index].time : nil
        }
    }

    /// Frames recorded so far.
    var framesReceived: Int { recording.withEngineLock { $0.framesReceived } }

    /// The frame that was playing at `time`.
    func frame(at time: Double) -> Int {
        recording.withEngineLock { state in
            let origin = Self.localOrigin(state, around: state.arrivals.partitionPoint { $0.time >= time })
            return Int(((time - origin) * Double(rate)).rounded(.down))
        }
    }

    /// When `frame` was played.
    func time(ofFrame frame: Int) -> Double {
        recording.withEngineLock { state in
            Self.localOrigin(state, around: state.arrivals.partitionPoint { $0.frameEnd > frame })
                + Double(frame) / Double(rate)
        }
    }

    /// The sample clock's origin from the reads within about a second of read `index`. A sink
    /// that rewinds (a stream starts, is flushed or corked) hands some frames to the monitor
    /// twice, and the clock slips by that much; a local origin follows the slip.
    private static func localOrigin(_ state: Recording, around index: Int) -> Double {
        guard !state.arrivals.isEmpty else { return state.originTime }
        let reads = 100  // at about 5 ms a read: half a second each side
        let low = max(0, min(index, state.arrivals.count - 1) - reads)
        let high = min(state.arrivals.count, max(index, 1) + reads)
        var origin = Double.infinity
        for read in state.arrivals[low..<high] {
            origin = min(origin, read.time - Double(read.frameEnd) / Double(state.rate))
        }
        return origin
    }

    /// Waits until the monitor has delivered what was played up to `time`.
    func waitUntilRecorded(_ time: Double, timeout: Double = 5) {
        let deadline = MonotonicClock.now() + timeout
        while frame(at: time) >= framesReceived, MonotonicClock.now() < deadline {
            MonotonicClock.sleep(0.005)
        }
    }

    /// The first frame from `start` on whose samples exceed `threshold`, waiting up to `timeout`.
    func waitForSound(from start: Int, threshold: Int16 = 64, timeout: Double) -> Int? {
        let deadline = MonotonicClock.now() + timeout
        var next = start
        while true {
            let (found, scanned) = recording.withEngineLock { state -> (Int?, Int) in
                let first = max(next, state.baseFrame)
                let end = state.framesReceived
                guard first < end else { return (nil, end) }
                for frame in first..<end {
                    if Self.isLoud(state.samples, frame: frame - state.baseFrame, threshold: threshold) {
                        return (frame, end)
                    }
                }
                return (nil, end)
            }
            if let found { return found }
            next = max(next, scanned)
            guard MonotonicClock.now() < deadline else { return nil }
            MonotonicClock.sleep(0.001)
        }
    }

    /// Waits until the last `seconds` recorded were silent (a player has gone quiet).
    func waitForSilence(seconds: Double = 0.15, threshold: Int16 = 64, timeout: Double = 5) -> Bool {
        let deadline = MonotonicClock.now() + timeout
        let span = Int(seconds * Double(rate))
        repeat {
            let quiet = recording.withEngineLock { state -> Bool in
                let end = state.framesReceived
                let first = max(state.baseFrame, end - span)
                guard end - first >= span else { return false }
                for frame in first..<end {
                    if Self.isLoud(state.samples, frame: frame - state.baseFrame, threshold: threshold) { return false }
                }
                return true
            }
            if quiet { return true }
            MonotonicClock.sleep(0.02)
        } while MonotonicClock.now() < deadline
        return false
    }

    /// Whether either channel of `frame` (an index into interleaved stereo `samples`) is louder
    /// than `threshold`.
    static func isLoud(_ samples: [Int16], frame: Int, threshold: Int16) -> Bool {
        abs(Int(samples[2 * frame])) > Int(threshold) || abs(Int(samples[2 * frame + 1])) > Int(threshold)
    }

    /// A copy of the interleaved samples of frames `range` (clamped to what is held).
    func samples(frames range: Range<Int>) -> (firstFrame: Int, samples: [Int16]) {
        recording.withEngineLock { state in
            let first = max(range.lowerBound, state.baseFrame)
            let end = min(range.upperBound, state.framesReceived)
            guard first < end else { return (first, []) }
            let slice = state.samples[((first - state.baseFrame) * Self.channels)..<((end - state.baseFrame) * Self.channels)]
            return (first, Array(slice))
        }
    }

    /// Forgets frames before `frame`, so hours of benchmarking keep memory bounded.
    func discard(before frame: Int) {
        recording.withEngineLock { state in
            let drop = min(max(frame - state.baseFrame, 0), state.framesReceived - state.baseFrame)
            guard drop > 0 else { return }
            state.samples.removeFirst(drop * Self.channels)
            state.baseFrame += drop
            if let keep = state.arrivals.firstIndex(where: { $0.frameEnd > state.baseFrame }), keep > 0 {
                state.arrivals.removeFirst(keep)
            }
        }
    }
}

/// A child whose stdout the harness reads through a pipe.
final class ChildProcessPipe: Sendable {
    let process: ChildProcess
    let fd: Int32

    init(_ command: [String]) throws {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw HarnessError("pipe failed") }
        // Close-on-exec, so no other child inherits the pipe (the dup2 onto stdout clears it).
        _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        process = try ChildProcess(command, stdoutDescriptor: fds[1])
        close(fds[1])
        fd = fds[0]
    }

    deinit { close(fd) }
}

extension Array {
    /// The index of the first element for which `isAfter` holds, for an array ordered so that
    /// it holds for a suffix (binary search).
    func partitionPoint(where isAfter: (Element) -> Bool) -> Int {
        var low = 0, high = count
        while low < high {
            let middle = (low + high) / 2
            if isAfter(self[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
