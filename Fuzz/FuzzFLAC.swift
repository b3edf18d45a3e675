// Fuzz target: FLAC frame headers (FLACFrameHeader, FLACStreamInfo) and the seek search over
// them (FLACSeekSearch), as a seek in a FLAC without a seek table reads them from the network.
// Input: a STREAMINFO block (34 bytes), then the bytes of a stream, which the search reads as
// the whole stream, to a target taken from the STREAMINFO's MD5 bytes.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFLAC(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 34, let info = FLACStreamInfo(Array(UnsafeBufferPointer(start: data, count: 34))) else { return 0 }
    let stream = UnsafeRawBufferPointer(start: data + 34, count: size - 34)
    var previous = -1
    for frame in FLACFrameHeader.frames(in: stream, at: 0, streamInfo: info) {
        precondition(frame.offset > previous && frame.offset < stream.count, "a frame out of order or outside the bytes")
        precondition(frame.header.blockSize > 0 && frame.header.blockSize <= info.maximumBlockSize, "a block size the STREAMINFO rules out")
        precondition(frame.header.firstSample >= 0, "a negative first sample")
        previous = frame.offset
    }
    let target = Int(data[30]) << 16 | Int(data[31]) << 8 | Int(data[32])
    let window = 16 + Int(data[33])
    var search = FLACSeekSearch(target: target, lower: .init(offset: 0, sample: 0), upperOffset: stream.count,
                                upperSample: info.totalSamples, closeEnough: 0, window: window)
    while let offset = search.nextRead() {
        precondition(offset > 0 && offset <= stream.count, "a read outside the stream")
        precondition(search.reads <= FLACSeekSearch.readLimit, "more reads than the limit")
        let end = min(offset + window, stream.count)
        let found = FLACFrameHeader.frames(in: UnsafeRawBufferPointer(rebasing: stream[offset..<end]), at: offset, streamInfo: info)
        guard search.record(frames: found.map { .init(offset: $0.offset, sample: $0.header.firstSample) }, readAt: offset) else { break }
    }
    precondition(search.landing.sample <= target, "a landing after the target")
    return 0
}
