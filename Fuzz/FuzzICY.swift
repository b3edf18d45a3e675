// Fuzz target: ICY stream demultiplexing and metadata parsing.
// Input: byte 0 picks the metadata interval, byte 1 the chunk size; the rest is the stream.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzICY(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 2 else { return 0 }
    let interval = Int(data[0]) * 64 + 1
    let chunk = Int(data[1]) + 1
    let stream = UnsafeRawBufferPointer(start: data + 2, count: size - 2)
    var demuxer = ICYDemuxer(interval: interval)
    let audio = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 1)
    defer { audio.deallocate() }
    var total = 0
    var start = 0
    while start < stream.count {
        let piece = UnsafeRawBufferPointer(rebasing: stream[start..<min(start + chunk, stream.count)])
        let written = demuxer.process(piece, audio: audio) { metadata in
            _ = metadata.title?.count
            _ = metadata.url?.count
        }
        precondition(written <= piece.count, "more audio out than bytes in")
        total += written
        start += chunk
    }
    precondition(total <= stream.count)
    _ = StreamMetadata(icyBlock: Array(stream))
    return 0
}
