// Fuzz target: the Ogg page reader that finds chained streams' comment headers and the last page.
// Input: byte 0 picks the piece size, byte 1 where a read jumps (as a demuxer's seek does); the
// rest is the stream.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOggPages(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 2 else { return 0 }
    let chunk = Int(data[0]) * 16 + 1
    let jumpAt = Int(data[1]) * 64
    let stream = UnsafeRawBufferPointer(start: data + 2, count: size - 2)
    let watcher = OggChainWatcher()
    var start = 0, offset = 0, lastEnd = -1
    while start < stream.count {
        let piece = UnsafeRawBufferPointer(rebasing: stream[start..<min(start + chunk, stream.count)])
        if start >= jumpAt, jumpAt > 0, offset == start { offset += 7 }
        watcher.observe(piece, at: offset)
        for comment in watcher.takeComments(before: offset + piece.count) {
            precondition(comment.endOffset > lastEnd, "a comment taken twice, or out of order")
            lastEnd = comment.endOffset
            _ = comment.tags?.title?.count
        }
        start += piece.count
        offset += piece.count
    }
    _ = watcher.endsMidPage
    _ = VorbisComment.read(Array(stream))
    return 0
}
