import CPulse
import Testing
@testable import StreamPlay

@Suite("PulseAudio stream request")
struct PulseAudioStreamRequestTests {
    static let spec = PulseAudioStreamRequest.sampleSpec(AudioFormat(sampleRate: 44100, channels: 2))
    static let bytesPerSecond = 44100.0 * 4

    @Test("a target above 0.2 s asks for a minreq that leaves the device the share a 0.2 s target gets",
          arguments: [0.3, 1.0, 2.0])
    func deviceShare(target: Double) {
        let attributes = PulseAudioStreamRequest.bufferAttributes(targetLatency: target, prebuffer: 0.05, spec: Self.spec)
        #expect(abs(Double(attributes.tlength) / Self.bytesPerSecond - target) < 0.001)
        #expect(abs(Double(attributes.prebuf) / Self.bytesPerSecond - 0.05) < 0.001)
        // The server's split with PA_STREAM_ADJUST_LATENCY: (tlength - 2 minreq) / 2.
        let device = (Double(attributes.tlength) - 2 * Double(attributes.minreq)) / 2 / Self.bytesPerSecond
        #expect(abs(device - PulseAudioStreamRequest.deviceLatency) < 0.001, "device \(device) s for a \(target) s target")
    }

    @Test("a target of 0.2 s or less leaves minreq to the server", arguments: [0.05, 0.1, 0.2])
    func serverDefault(target: Double) {
        let attributes = PulseAudioStreamRequest.bufferAttributes(targetLatency: target, prebuffer: 0.05, spec: Self.spec)
        #expect(attributes.minreq == UInt32.max)
        #expect(attributes.maxlength == UInt32.max)
    }
}
