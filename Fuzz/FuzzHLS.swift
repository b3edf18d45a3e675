// Fuzz target: HLS (m3u8) playlist parsing, variant choice and segment lookup.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHLS(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    _ = HLSPlaylistParser.isHLS(text)
    for base in ["http://127.0.0.1:8000/hls/index.m3u8?token=1", "https://127.0.0.1/a/b/"] {
        let playlist: HLSPlaylist
        do { playlist = try HLSPlaylistParser.parse(text, url: base) } catch { continue }
        switch playlist {
        case .master(let variants):
            precondition(!variants.isEmpty, "a master playlist without variants parsed")
            for bandwidth in [nil, 0, 64_000, Int.max] {
                if let chosen = HLSVariantSelection.choose(from: variants, maximumBandwidth: bandwidth) {
                    precondition(variants.contains(chosen))
                }
            }
        case .media(let media):
            let total = media.totalDuration
            precondition(total >= 0 && !total.isNaN, "negative or NaN total duration")
            for seconds in [0, total / 2, total, total + 1, -1] {
                let found = media.segmentIndex(at: seconds)
                precondition(media.segments.isEmpty || media.segments.indices.contains(found.index))
                _ = media.startTime(ofSegment: found.index)
            }
            for segment in media.segments {
                precondition(!segment.url.unicodeScalars.contains { $0.value < 0x20 }, "control character in a segment URL")
                precondition(segment.duration >= 0 && segment.duration.isFinite)
                if let range = segment.byteRange { precondition(range.offset >= 0 && range.length > 0) }
                if let key = segment.key { precondition(key.initializationVector(sequence: segment.sequence).count == 16) }
            }
        }
    }
    return 0
}
