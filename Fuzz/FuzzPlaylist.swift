// Fuzz target: .m3u and .pls playlist parsing.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPlaylist(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    for kind in [PlaylistParser.Kind.m3u, .pls] {
        for base in ["http://127.0.0.1:8000/lists/a.m3u?x=1", "/music/a.pls", "a"] {
            for entry in PlaylistParser.entries(of: text, kind: kind, base: base) {
                precondition(!entry.isEmpty)
                precondition(!entry.unicodeScalars.contains { $0.value < 0x20 }, "control character in an entry")
            }
        }
    }
    _ = PlaylistParser.kind(of: text)
    return 0
}
