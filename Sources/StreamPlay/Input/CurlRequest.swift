import CCurl
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The engine's one place for libcurl settings and for turning a result into a ``PlayerError``
/// (through ``CurlFailureKind``), shared by every request, so that all of them behave the same
/// on the network.
package enum CurlRequest {
    /// Why libcurl could not be loaded and set up, or `nil` once it is: the first use loads it
    /// (see `CCurl.h`), or waits for work begun ahead (``beginLoading()``, ``beginOpening()``).
    /// No libcurl function may be called while this is not `nil`.
    static var loadFailure: String? {
        sp_curl_load() == 1 ? nil : "cannot load libcurl: \(String(cString: sp_curl_load_error()))"
    }

    /// Starts loading libcurl on a thread of its own, so that the dynamic loader's work on it
    /// and its ~30 libraries runs while the caller goes on; the first request waits for it if
    /// it is still under way. For a program that knows early that it will make requests and
    /// calls ``finishLoading()`` before it exits: the `streamplay` command, before it parses its
    /// arguments, when they name something on the network.
    package static func beginLoading() {
        sp_curl_begin_loading()
    }

    /// As ``beginLoading()``, but the thread only opens libcurl (its `dlopen`, most of a load's
    /// time), and the first request runs `curl_global_init`. `exit` waits for a `dlopen` under
    /// way (see `CCurl.h`), so a program need not wait itself: a ``Player`` does it when made,
    /// unless the process declined (``declineLoadingAhead()``).
    package static func beginOpening() {
        sp_curl_begin_opening()
    }

    /// Makes later ``beginLoading()`` and ``beginOpening()`` calls do nothing (unless one came
    /// first): for a program that knows early that it will probably make no request, such as the
    /// command given only files. Its first request, if it makes one after all, loads libcurl on
    /// its own thread, so such a program calls ``finishLoading()`` before it exits too.
    package static func declineLoadingAhead() {
        sp_curl_decline_ahead()
    }

    /// Waits until a load that has begun (with ``beginLoading()``, or by a request) has ended,
    /// or, when none has, keeps any from beginning: a later request fails, as it would without
    /// libcurl. A program calls it before `exit`, which runs the libraries' exit handlers and
    /// destructors: they must not meet a `dlopen` or `curl_global_init` under way on another
    /// thread.
    package static func finishLoading() {
        sp_curl_finish_loading()
    }

    /// Applies the settings every request shares: redirects (bounded, http and https only),
    /// TLS verification (always), User-Agent, timeouts. Proxies come from the environment
    /// (http_proxy, https_proxy, no_proxy), as libcurl reads them by default.
    static func configure(_ handle: UnsafeMutableRawPointer, url: String, configuration: PlayerConfiguration) {
        configure(handle, url: url, maxRedirects: configuration.maxRedirects,
                  caCertificatesPath: configuration.caCertificatesPath, userAgent: configuration.userAgent,
                  connectTimeout: configuration.connectTimeout)
    }

    /// The shared settings from their parts (the API client has no ``PlayerConfiguration``).
    static func configure(_ handle: UnsafeMutableRawPointer, url: String, maxRedirects: Int,
                          caCertificatesPath: String?, userAgent: String, connectTimeout: Double) {
        sp_curl_setopt_pointer(handle, CURLOPT_URL, url)
        sp_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
        sp_curl_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 1)
        sp_curl_setopt_long(handle, CURLOPT_MAXREDIRS, maxRedirects)
        sp_curl_setopt_pointer(handle, CURLOPT_PROTOCOLS_STR, "http,https")
        sp_curl_setopt_pointer(handle, CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
        sp_curl_setopt_long(handle, CURLOPT_FAILONERROR, 1)
        sp_curl_setopt_long(handle, CURLOPT_SSL_VERIFYPEER, 1)
        sp_curl_setopt_long(handle, CURLOPT_SSL_VERIFYHOST, 2)
        if let caPath = caCertificatesPath {
            sp_curl_setopt_pointer(handle, CURLOPT_CAINFO, caPath)
            // Only that file: Debian's libcurl would also trust its default CA directory.
            sp_curl_setopt_pointer(handle, CURLOPT_CAPATH, nil)
        }
        sp_curl_setopt_pointer(handle, CURLOPT_USERAGENT, userAgent)
        sp_curl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, Int(connectTimeout * 1000))
        sp_curl_setopt_long(handle, CURLOPT_TCP_KEEPALIVE, 1)
    }

    /// The typed error for a failed request.
    /// - Parameter received: body bytes that had arrived, which tells a lost connection from
    ///   one that never worked.
    static func error(for code: CURLcode, handle: UnsafeMutableRawPointer, url: String, received: Int,
                      configuration: PlayerConfiguration) -> PlayerError {
        error(for: code, handle: handle, url: url, received: received, connectTimeout: configuration.connectTimeout)
    }

    /// The typed error for a failed request, from the connect timeout alone. Reads the status
    /// and the OS error from `handle`, on the thread that owns it.
    static func error(for code: CURLcode, handle: UnsafeMutableRawPointer, url: String, received: Int,
                      connectTimeout: Double) -> PlayerError {
        var status = 0
        sp_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        var osError = 0
        sp_curl_getinfo_long(handle, CURLINFO_OS_ERRNO, &osError)
        return error(for: code, status: status, osError: Int32(truncatingIfNeeded: osError), url: url,
                     received: received, connectTimeout: connectTimeout)
    }

    /// The typed error for a failed request, from its ``CurlFailureKind``: a pure function, so
    /// that tests check the mapping without a network.
    /// - Parameters:
    ///   - status: the response code, for an error status.
    ///   - osError: the `errno` of a failed connect (0 when there was none).
    ///   - received: body bytes that had arrived, which tells a lost connection from one that
    ///     never worked.
    static func error(for code: CURLcode, status: Int, osError: Int32, url: String, received: Int,
                      connectTimeout: Double) -> PlayerError {
        let failure = self.failure(for: code, osError: osError)
            ?? MediaTransferFailure(kind: .other, reason: describe(code))
        return error(for: failure, status: status, url: url, received: received, connectTimeout: connectTimeout)
    }

    /// libcurl's words for `code`. Loads libcurl first if no request did (a test of the mapping);
    /// its number alone when libcurl cannot be loaded.
    static func describe(_ code: CURLcode) -> String {
        loadFailure == nil ? String(cString: sp_curl_easy_strerror(code)) : "libcurl error \(code.rawValue)"
    }

    /// What a failed libcurl result tells a ``MediaTransferReceiver``: its kind, and libcurl's
    /// words for it (with the OS error of a failed connect); `nil` for `CURLE_OK`.
    static func failure(for code: CURLcode, osError: Int32) -> MediaTransferFailure? {
        guard let kind = CurlFailureKind(code) else { return nil }
        var reason = describe(code)
        if kind == .connectFailed {
            reason += " (\(osError == 0 ? "no OS error" : String(cString: strerror(osError))))"
        }
        return MediaTransferFailure(kind: kind, reason: reason)
    }

    /// The typed error for a failed transfer of any ``MediaTransport``: a pure function.
    /// - Parameters:
    ///   - status: the response code, for an error status.
    ///   - received: body bytes that had arrived, which tells a lost connection from one that
    ///     never worked.
    static func error(for failure: MediaTransferFailure, status: Int, url: String, received: Int,
                      connectTimeout: Double) -> PlayerError {
        let redacted = RedactedURL.describe(url)
        // A transport's own words (any transport's, not only libcurl's) may quote the URL:
        // its credentials, query and fragment never reach an error.
        var reason = failure.reason.replacing(url, with: redacted)
        if let query = url.firstIndex(where: { $0 == "?" || $0 == "#" }), url.index(after: query) < url.endIndex {
            reason = reason.replacing(url[query...], with: "")
        }
        switch failure.kind {
        case .httpStatus:
            return .httpStatus(code: status, url: redacted)
        case .hostNotFound:
            return .hostNotFound(host: URLComponents(string: url)?.host ?? redacted)
        case .connectFailed:
            return .connectionFailed(url: redacted, reason: reason)
        case .timedOut:
            return .timedOut(url: redacted, seconds: connectTimeout)
        case .tls:
            return .tlsFailure(url: redacted, reason: reason)
        case .tooManyRedirects:
            return .tooManyRedirects(url: redacted)
        case .unsupportedProtocol:
            return .unsupportedScheme(URLComponents(string: url)?.scheme ?? redacted)
        case .connectionBroken:
            return received > 0
                ? .connectionLost(url: redacted, reason: reason)
                : .connectionFailed(url: redacted, reason: reason)
        case .aborted, .other:
            return .transferFailed(url: redacted, reason: reason)
        }
    }
}
