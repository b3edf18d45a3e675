import Synchronization
@testable import StreamPlay

/// A sink that hands everything to another sink and keeps the order of the calls that move
/// audio: opens (with their format), writes, starts, pauses, drains, flushes and closes.
///
/// For the order a sound server's stream depends on, which a recording sink does not show: a
/// PulseAudio stream reopened in another format drops what it has not played, so what was
/// written must be started and drained before the next open.
final class SinkCallLog: ForwardingSink {
    let inner: any AudioSink
    private let log = Mutex<[String]>([])

    init(_ inner: any AudioSink) {
        self.inner = inner
    }

    /// The calls so far, in order: `open <rate>/<channels>`, `write` (once for a run of
    /// writes), `start`, `pause`, `drain`, `flush`, `close`.
    var calls: [String] { log.withEngineLock { $0 } }

    private func note(_ call: String) {
        log.withEngineLock { log in
            if call == "write" && log.last == "write" { return }
            log.append(call)
        }
    }

    func open(format: AudioFormat) throws(PlayerError) {
        note("open \(format.sampleRate)/\(format.channels)")
        try inner.open(format: format)
    }

    func write(_ pcm: UnsafeRawBufferPointer) throws(PlayerError) -> Int {
        note("write")
        return try inner.write(pcm)
    }

    func start() {
        note("start")
        inner.start()
    }

    func pause() {
        note("pause")
        inner.pause()
    }

    func flush() {
        note("flush")
        inner.flush()
    }

    func drain() throws(PlayerError) -> Bool {
        note("drain")
        return try inner.drain()
    }

    func close() {
        note("close")
        inner.close()
    }
}
