// Fuzz target: ID3v2 tags as they come from the network (text frames, track numbers, pictures;
// versions 2.2 to 2.4, unsynchronisation, extended headers, frame flags).
// Input: the bytes of a tag, possibly cut short.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzID3(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let names = ID3TagReader.read(UnsafeBufferPointer(start: data, count: size)) else { return 0 }
    _ = names.title?.count
    _ = names.artist?.count
    _ = names.album?.count
    if let number = names.trackNumber { precondition(number > 0, "a track number below 1") }
    if let artwork = names.artwork {
        precondition(!artwork.data.isEmpty && artwork.data.count <= Artwork.maximumSize, "a picture outside its bounds")
        precondition(artwork.data.count < size, "a picture as big as the whole tag")
    }
    return 0
}
