// Fuzz target: FFmpeg's demuxers and decoders fed through the engine's AVIO glue
// (AVIOBridge, FFmpegDecoder). Input: a container choice byte, then the bytes of the "file".
// The pump hands the bytes out in uneven pieces, as the network does, and answers seeks within
// them; every fifth input also seeks once a format is known. Any crash, or a decode that does
// not end, is a finding; errors are expected.

import CFFmpeg

final class FuzzPump: DecoderInputPump {
    var data: [UInt8] = []
    var position = 0
    var chunk = 1
    weak var decoder: FFmpegDecoder?

    func pumpInput() -> InputPumpResult {
        guard position < data.count, let decoder else { return .ended }
        let end = min(position + chunk, data.count)
        data[position..<end].withUnsafeBytes { try? decoder.feed($0) }
        position = end
        chunk = chunk % 4093 + 997
        return .fed
    }

    func repositionInput(to offset: Int) { position = min(max(offset, 0), data.count) }
    var inputIsSeekable: Bool { true }
    var inputLength: Int? { data.count }
}

let containers: [MediaSignature] = [.mp4(brand: nil), .adts, .ogg(codec: nil), .flac, .mpegTS, .wav, .aiff, .matroska]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFFmpegInput(_ bytes: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 1 else { return 0 }
    let pump = FuzzPump()
    pump.data = Array(UnsafeBufferPointer(start: bytes + 1, count: size - 1))
    let container = containers[Int(bytes[0]) % containers.count]
    // FFmpeg's libraries are there in a fuzzing build: failing to load them is a crash to report.
    let decoder = try! FFmpegDecoder(container: container, pump: pump)
    pump.decoder = decoder
    decoder.setInputLength(pump.data.count)
    let pcm = UnsafeMutableRawBufferPointer.allocate(byteCount: FFmpegDecoder.bufferSize, alignment: 16)
    defer { pcm.deallocate() }
    var seeked = bytes[0] % 5 != 0
    // Bounded: a decode that neither ends nor fails within this many steps is a hang.
    for _ in 0..<200_000 {
        guard let step = try? decoder.decode(into: pcm) else { return 0 }
        switch step {
        case .finished: return 0
        case .needMore: if pump.position >= pump.data.count { return 0 }
        case .audio(let count, _): precondition(count <= pcm.count && count % max(decoder.format?.bytesPerFrame ?? 1, 1) == 0)
        case .formatChanged:
            let format = decoder.format!
            precondition(format.sampleRate > 0 && format.channels > 0)
            if !seeked {
                seeked = true
                _ = try? decoder.seek(toFrame: Int(bytes[0]) * 100)
            }
        case .tagsChanged: precondition(decoder.tags != nil)
        }
    }
    preconditionFailure("the decode did not end")
}
