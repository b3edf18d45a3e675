/// How a resolved stream is delivered, which decides the input the Player opens.
public enum StreamFormat: String, Sendable, Equatable, CustomStringConvertible {
    /// One file over HTTP (Range requests work).
    case progressive
    /// An HLS playlist of segments (.m3u8).
    case hls

    /// `progressive` or `hls`.
    public var description: String { rawValue }
}
