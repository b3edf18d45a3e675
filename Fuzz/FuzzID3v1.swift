// Fuzz target: ID3v1 and ID3v1.1 tags, with or without the enhanced TAG+ block, as the last
// bytes of a file or a Range response give them.
// Input: the trailing bytes, any length.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzID3v1(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let names = ID3v1TagReader.read(UnsafeBufferPointer(start: data, count: size)) else { return 0 }
    precondition(size >= ID3v1TagReader.tagSize, "a tag read from fewer bytes than a tag")
    precondition(names.artwork == nil && names.url == nil, "ID3v1 names no picture or link")
    // A Latin-1 field is one character per byte: 30, or 90 with TAG+.
    for field in [names.title, names.artist, names.album] {
        if let field { precondition(!field.isEmpty && field.unicodeScalars.count <= 90, "a field beyond its bytes") }
    }
    if let number = names.trackNumber { precondition((1...255).contains(number), "a track number outside a byte") }
    return 0
}
