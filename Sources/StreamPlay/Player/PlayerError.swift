/// Why a play failed, with the place it failed.
///
/// URLs in these errors are redacted by ``RedactedURL``: query strings and user info are
/// dropped, since signed stream URLs carry credentials there.
public enum PlayerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The string given to play is neither a URL the engine understands nor a path.
    case invalidLocation(String)
    /// The scheme is not one the engine can fetch (http, https, file).
    case unsupportedScheme(String)
    /// The host name does not resolve.
    case hostNotFound(host: String)
    /// The TCP connection failed (refused, unreachable).
    case connectionFailed(url: String, reason: String)
    /// The connection broke after audio began to arrive.
    case connectionLost(url: String, reason: String)
    /// The TLS handshake or certificate verification failed.
    case tlsFailure(url: String, reason: String)
    /// Nothing arrived for longer than the configured timeout.
    case timedOut(url: String, seconds: Double)
    /// The server answered with an HTTP error status.
    case httpStatus(code: Int, url: String)
    /// Redirects went on past the configured limit (or in a loop).
    case tooManyRedirects(url: String)
    /// Any other transfer failure, with libcurl's explanation.
    case transferFailed(url: String, reason: String)
    /// A local file does not exist.
    case fileNotFound(path: String)
    /// A local file exists but cannot be read.
    case fileUnreadable(path: String, reason: String)
    /// The resource has no bytes at all.
    case emptyStream(url: String)
    /// The bytes are not MPEG audio (an HTML page, random bytes, another format).
    case notAudio(url: String, reason: String)
    /// The decoder failed on bytes it had accepted as audio.
    case decodingFailed(reason: String)
    /// The sound server cannot be reached, or refused the stream.
    case soundServerUnavailable(reason: String)
    /// The output (a WAV file, a sink) failed.
    case outputFailed(reason: String)
    /// A seek was asked of a stream that cannot seek.
    case seekNotSupported(reason: String)
    /// A playlist (HLS m3u8) is malformed or has nothing playable in it.
    case invalidPlaylist(url: String, reason: String)
    /// The media is in a format StreamPlay recognises but cannot play yet (AAC, fMP4 or MPEG-TS
    /// HLS segments).
    case unsupportedFormat(url: String, format: String)

    /// One line naming the cause and the place, fit for a terminal or a log.
    public var description: String {
        switch self {
        case .invalidLocation(let text): "not a URL or file path: \(text)"
        case .unsupportedScheme(let scheme): "unsupported URL scheme '\(scheme)' (use http, https or file)"
        case .hostNotFound(let host): "host not found: \(host)"
        case .connectionFailed(let url, let reason): "could not connect to \(url): \(reason)"
        case .connectionLost(let url, let reason): "connection to \(url) lost: \(reason)"
        case .tlsFailure(let url, let reason): "TLS failure for \(url): \(reason)"
        case .timedOut(let url, let seconds): "timed out after \(seconds) s waiting for \(url)"
        case .httpStatus(let code, let url): "HTTP \(code) from \(url)"
        case .tooManyRedirects(let url): "too many redirects from \(url)"
        case .transferFailed(let url, let reason): "transfer from \(url) failed: \(reason)"
        case .fileNotFound(let path): "no such file: \(path)"
        case .fileUnreadable(let path, let reason): "cannot read \(path): \(reason)"
        case .emptyStream(let url): "\(url) is empty"
        case .notAudio(let url, let reason): "\(url) is not MPEG audio: \(reason)"
        case .decodingFailed(let reason): "decoding failed: \(reason)"
        case .soundServerUnavailable(let reason): "sound server unavailable: \(reason)"
        case .outputFailed(let reason): "output failed: \(reason)"
        case .seekNotSupported(let reason): "cannot seek: \(reason)"
        case .invalidPlaylist(let url, let reason): "invalid playlist \(url): \(reason)"
        case .unsupportedFormat(let url, let format):
            "\(url) is \(format), which StreamPlay cannot play yet (only MP3 and MP2)"
        }
    }
}
