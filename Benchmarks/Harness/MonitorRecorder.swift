import Foundation
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
        var finished = false
    }

    private let recording = Mutex(Recording())
    private let reader: ChildProcessPipe
    private let keepAlive: ChildProcess

    /// Starts recording `sink.monitor`, and a stream of zeros that keeps the sink running (an
    /// idle null sink is suspended and its monitor falls silent, which would break the clock).
    init(sink: String, rate: Int = 44100) throws {
        self.sink = sink
        self.rate = rate
        let format = ["--raw", "--format=s16le", "--rate=\(rate)", "--channels=\(Self.channels)"]
        // Its small latency also keeps the sink's blocks small: a null sink mixes up to one
        // block ahead of its clock and hands that to the monitor at once, so the block size
        // bounds how early the monitor can see a sample.
        keepAlive = try ChildProcess(["pacat"] + format + ["--latency-msec=2", "-d", sink, "/dev/zero"])
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
            recording.withLock { state in
                carry.withUnsafeBytes { raw in
                    let samples = raw.bindMemory(to: Int16.self)
                    state.samples.append(contentsOf: samples[0..<(whole / 2)])
                }
                state.framesReceived += whole / (2 * Self.channels)
                state.originTime = min(state.originTime, arrival - Double(state.framesReceived) / Double(rate))
            }
            carry.removeFirst(whole)
        }
        recording.withLock { $0.finished = true }
    }

    /// Frames recorded so far.
    var framesReceived: Int { recording.withLock { $0.framesReceived } }

    /// The frame that was playing at `time`.
    func frame(at time: Double) -> Int {
        recording.withLock { Int(((time - $0.originTime) * Double(rate)).rounded(.down)) }
    }

    /// When `frame` was played.
    func time(ofFrame frame: Int) -> Double {
        recording.withLock { $0.originTime + Double(frame) / Double(rate) }
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
            let (found, scanned) = recording.withLock { state -> (Int?, Int) in
                let first = max(next, state.baseFrame)
                let end = state.framesReceived
                guard first < end else { return (nil, end) }
                for frame in first..<end {
                    let index = (frame - state.baseFrame) * Self.channels
                    if abs(Int(state.samples[index])) > Int(threshold)
                        || abs(Int(state.samples[index + 1])) > Int(threshold) {
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
            let quiet = recording.withLock { state -> Bool in
                let end = state.framesReceived
                let first = max(state.baseFrame, end - span)
                guard end - first >= span else { return false }
                for frame in first..<end {
                    let index = (frame - state.baseFrame) * Self.channels
                    if abs(Int(state.samples[index])) > Int(threshold)
                        || abs(Int(state.samples[index + 1])) > Int(threshold) { return false }
                }
                return true
            }
            if quiet { return true }
            MonotonicClock.sleep(0.02)
        } while MonotonicClock.now() < deadline
        return false
    }

    /// A copy of the interleaved samples of frames `range` (clamped to what is held).
    func samples(frames range: Range<Int>) -> (firstFrame: Int, samples: [Int16]) {
        recording.withLock { state in
            let first = max(range.lowerBound, state.baseFrame)
            let end = min(range.upperBound, state.framesReceived)
            guard first < end else { return (first, []) }
            let slice = state.samples[((first - state.baseFrame) * Self.channels)..<((end - state.baseFrame) * Self.channels)]
            return (first, Array(slice))
        }
    }

    /// Forgets frames before `frame`, so hours of benchmarking keep memory bounded.
    func discard(before frame: Int) {
        recording.withLock { state in
            let drop = min(max(frame - state.baseFrame, 0), state.framesReceived - state.baseFrame)
            guard drop > 0 else { return }
            state.samples.removeFirst(drop * Self.channels)
            state.baseFrame += drop
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
