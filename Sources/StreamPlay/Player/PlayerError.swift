/// Why a play failed, with the place it failed.
///
/// A struct over a private cause rather than an enum, so that new kinds of failure (a new
/// format's, a new output's) can be added without breaking a caller's `switch`: compare
/// ``code`` with the ``Code`` constants, and read ``url``, ``status``, ``reason`` or ``format``
/// where the failure has one. Errors are made with the static functions of the same names as
/// the codes, and compare equal when their code and details are equal.
///
/// URLs in these errors are redacted by ``RedactedURL``: query strings and user info are
/// dropped, since signed stream URLs carry credentials there.
public struct PlayerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of a failure. Open: later versions may add codes.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        /// The code's name, as in the constants below.
        public var description: String { name }

        /// The string given to play is neither a URL the engine understands nor a path.
        public static let invalidLocation = Code("invalidLocation")
        /// The scheme is not one the engine can fetch (http, https, file).
        public static let unsupportedScheme = Code("unsupportedScheme")
        /// The host name does not resolve.
        public static let hostNotFound = Code("hostNotFound")
        /// The TCP connection failed (refused, unreachable).
        public static let connectionFailed = Code("connectionFailed")
        /// The connection broke after audio began to arrive.
        public static let connectionLost = Code("connectionLost")
        /// The TLS handshake or certificate verification failed.
        public static let tlsFailure = Code("tlsFailure")
        /// Nothing arrived for longer than the configured timeout.
        public static let timedOut = Code("timedOut")
        /// The server answered with an HTTP error status.
        public static let httpStatus = Code("httpStatus")
        /// Redirects went on past the configured limit (or in a loop).
        public static let tooManyRedirects = Code("tooManyRedirects")
        /// Any other transfer failure, with libcurl's explanation.
        public static let transferFailed = Code("transferFailed")
        /// A local file does not exist.
        public static let fileNotFound = Code("fileNotFound")
        /// A local file exists but cannot be read.
        public static let fileUnreadable = Code("fileUnreadable")
        /// The resource has no bytes at all.
        public static let emptyStream = Code("emptyStream")
        /// The bytes are not audio the engine recognises (an HTML page, random bytes).
        public static let notAudio = Code("notAudio")
        /// The decoder failed on bytes it had accepted as audio, or the decoder a format needs
        /// cannot be loaded (FFmpeg's libraries, named in the reason).
        public static let decodingFailed = Code("decodingFailed")
        /// The sound server cannot be reached, or refused the stream.
        public static let soundServerUnavailable = Code("soundServerUnavailable")
        /// The output (a WAV file, a sink) failed.
        public static let outputFailed = Code("outputFailed")
        /// A seek was asked of a stream that cannot seek.
        public static let seekNotSupported = Code("seekNotSupported")
        /// A playlist (HLS m3u8) is malformed or has nothing playable in it.
        public static let invalidPlaylist = Code("invalidPlaylist")
        /// The media is in a format StreamPlay recognises but cannot play.
        public static let unsupportedFormat = Code("unsupportedFormat")
        /// The audio is encrypted with DRM (HLS SAMPLE-AES, `skd://` FairPlay keys, MP4 `cenc`
        /// or `cbcs` protection), which StreamPlay cannot decrypt; ``format`` names the scheme.
        public static let drmProtected = Code("drmProtected")
    }

    private enum Cause: Sendable, Hashable {
        case invalidLocation(String)
        case unsupportedScheme(String)
        case hostNotFound(host: String)
        case connectionFailed(url: String, reason: String)
        case connectionLost(url: String, reason: String)
        case tlsFailure(url: String, reason: String)
        case timedOut(url: String, seconds: Double)
        case httpStatus(code: Int, url: String)
        case tooManyRedirects(url: String)
        case transferFailed(url: String, reason: String)
        case fileNotFound(path: String)
        case fileUnreadable(path: String, reason: String)
        case emptyStream(url: String)
        case notAudio(url: String, reason: String)
        case decodingFailed(reason: String)
        case soundServerUnavailable(reason: String)
        case outputFailed(reason: String)
        case seekNotSupported(reason: String)
        case invalidPlaylist(url: String, reason: String)
        case unsupportedFormat(url: String, format: String)
        case drmProtected(url: String, scheme: String)
    }

    private let cause: Cause

    private init(_ cause: Cause) {
        self.cause = cause
    }

    /// The kind of failure.
    public var code: Code {
        switch cause {
        case .invalidLocation: .invalidLocation
        case .unsupportedScheme: .unsupportedScheme
        case .hostNotFound: .hostNotFound
        case .connectionFailed: .connectionFailed
        case .connectionLost: .connectionLost
        case .tlsFailure: .tlsFailure
        case .timedOut: .timedOut
        case .httpStatus: .httpStatus
        case .tooManyRedirects: .tooManyRedirects
        case .transferFailed: .transferFailed
        case .fileNotFound: .fileNotFound
        case .fileUnreadable: .fileUnreadable
        case .emptyStream: .emptyStream
        case .notAudio: .notAudio
        case .decodingFailed: .decodingFailed
        case .soundServerUnavailable: .soundServerUnavailable
        case .outputFailed: .outputFailed
        case .seekNotSupported: .seekNotSupported
        case .invalidPlaylist: .invalidPlaylist
        case .unsupportedFormat: .unsupportedFormat
        case .drmProtected: .drmProtected
        }
    }

    /// The place the failure concerns: a URL (redacted), a path, the host that did not resolve,
    /// the scheme refused, or the text that is no location.
    public var url: String? {
        switch cause {
        case .connectionFailed(let url, _), .connectionLost(let url, _), .tlsFailure(let url, _),
             .timedOut(let url, _), .httpStatus(_, let url), .tooManyRedirects(let url),
             .transferFailed(let url, _), .emptyStream(let url), .notAudio(let url, _),
             .invalidPlaylist(let url, _), .unsupportedFormat(let url, _), .drmProtected(let url, _):
            url
        case .fileNotFound(let path), .fileUnreadable(let path, _):
            path
        case .hostNotFound(let host):
            host
        case .invalidLocation(let text), .unsupportedScheme(let text):
            text
        case .decodingFailed, .soundServerUnavailable, .outputFailed, .seekNotSupported:
            nil
        }
    }

    /// The HTTP status, for ``Code/httpStatus``.
    public var status: Int? {
        if case .httpStatus(let code, _) = cause { code } else { nil }
    }

    /// The explanation a failure came with (libcurl's, the decoder's, the sound server's), when
    /// it has one.
    public var reason: String? {
        switch cause {
        case .connectionFailed(_, let reason), .connectionLost(_, let reason), .tlsFailure(_, let reason),
             .transferFailed(_, let reason), .fileUnreadable(_, let reason), .notAudio(_, let reason),
             .decodingFailed(let reason), .soundServerUnavailable(let reason), .outputFailed(let reason),
             .seekNotSupported(let reason), .invalidPlaylist(_, let reason):
            reason
        default:
            nil
        }
    }

    /// The format recognised, for ``Code/unsupportedFormat`` ("MP4 (brand M4A)", "FLAC", ...).
    public var format: String? {
        switch cause {
        case .unsupportedFormat(_, let format), .drmProtected(_, let format): format
        default: nil
        }
    }

    /// One line naming the cause and the place, fit for a terminal or a log.
    public var description: String {
        switch cause {
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
        case .notAudio(let url, let reason): "\(url) is not audio StreamPlay can play: \(reason)"
        case .decodingFailed(let reason): "decoding failed: \(reason)"
        case .soundServerUnavailable(let reason): "sound server unavailable: \(reason)"
        case .outputFailed(let reason): "output failed: \(reason)"
        case .seekNotSupported(let reason): "cannot seek: \(reason)"
        case .invalidPlaylist(let url, let reason): "invalid playlist \(url): \(reason)"
        case .unsupportedFormat(let url, let format):
            "\(url) is \(format), which StreamPlay cannot play"
        case .drmProtected(let url, let scheme):
            "\(url) is encrypted with DRM (\(scheme)), which StreamPlay cannot decrypt"
        }
    }
}

extension PlayerError {
    /// See ``Code/invalidLocation``.
    public static func invalidLocation(_ text: String) -> PlayerError { PlayerError(.invalidLocation(text)) }
    /// See ``Code/unsupportedScheme``.
    public static func unsupportedScheme(_ scheme: String) -> PlayerError { PlayerError(.unsupportedScheme(scheme)) }
    /// See ``Code/hostNotFound``.
    public static func hostNotFound(host: String) -> PlayerError { PlayerError(.hostNotFound(host: host)) }
    /// See ``Code/connectionFailed``.
    public static func connectionFailed(url: String, reason: String) -> PlayerError {
        PlayerError(.connectionFailed(url: url, reason: reason))
    }
    /// See ``Code/connectionLost``.
    public static func connectionLost(url: String, reason: String) -> PlayerError {
        PlayerError(.connectionLost(url: url, reason: reason))
    }
    /// See ``Code/tlsFailure``.
    public static func tlsFailure(url: String, reason: String) -> PlayerError { PlayerError(.tlsFailure(url: url, reason: reason)) }
    /// See ``Code/timedOut``.
    public static func timedOut(url: String, seconds: Double) -> PlayerError { PlayerError(.timedOut(url: url, seconds: seconds)) }
    /// See ``Code/httpStatus``.
    public static func httpStatus(code: Int, url: String) -> PlayerError { PlayerError(.httpStatus(code: code, url: url)) }
    /// See ``Code/tooManyRedirects``.
    public static func tooManyRedirects(url: String) -> PlayerError { PlayerError(.tooManyRedirects(url: url)) }
    /// See ``Code/transferFailed``.
    public static func transferFailed(url: String, reason: String) -> PlayerError {
        PlayerError(.transferFailed(url: url, reason: reason))
    }
    /// See ``Code/fileNotFound``.
    public static func fileNotFound(path: String) -> PlayerError { PlayerError(.fileNotFound(path: path)) }
    /// See ``Code/fileUnreadable``.
    public static func fileUnreadable(path: String, reason: String) -> PlayerError {
        PlayerError(.fileUnreadable(path: path, reason: reason))
    }
    /// See ``Code/emptyStream``.
    public static func emptyStream(url: String) -> PlayerError { PlayerError(.emptyStream(url: url)) }
    /// See ``Code/notAudio``.
    public static func notAudio(url: String, reason: String) -> PlayerError { PlayerError(.notAudio(url: url, reason: reason)) }
    /// See ``Code/decodingFailed``.
    public static func decodingFailed(reason: String) -> PlayerError { PlayerError(.decodingFailed(reason: reason)) }
    /// See ``Code/soundServerUnavailable``.
    public static func soundServerUnavailable(reason: String) -> PlayerError {
        PlayerError(.soundServerUnavailable(reason: reason))
    }
    /// See ``Code/outputFailed``.
    public static func outputFailed(reason: String) -> PlayerError { PlayerError(.outputFailed(reason: reason)) }
    /// See ``Code/seekNotSupported``.
    public static func seekNotSupported(reason: String) -> PlayerError { PlayerError(.seekNotSupported(reason: reason)) }
    /// See ``Code/invalidPlaylist``.
    public static func invalidPlaylist(url: String, reason: String) -> PlayerError {
        PlayerError(.invalidPlaylist(url: url, reason: reason))
    }
    /// See ``Code/unsupportedFormat``.
    public static func unsupportedFormat(url: String, format: String) -> PlayerError {
        PlayerError(.unsupportedFormat(url: url, format: format))
    }
    /// See ``Code/drmProtected``.
    public static func drmProtected(url: String, scheme: String) -> PlayerError {
        PlayerError(.drmProtected(url: url, scheme: scheme))
    }
}
