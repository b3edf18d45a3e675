import CCurl

/// An owned libcurl easy handle and its header list, with the engine's shared settings applied
/// (see ``CurlRequest``); both are freed when it goes away.
///
/// Every request the engine makes starts here, so that the user agent, TLS verification, the CA
/// file, redirects, timeouts and the configured request headers are set in one place. A handle
/// is used by one thread at a time: its creator while it is set up, the ``CurlLoop``'s thread
/// from ``CurlLoop/add(_:handler:id:cancelled:)`` until its handler hears it is done, then its
/// owner again (to read its status).
final class CurlEasy {
    /// The easy handle, for `curl_easy_*` and `curl_multi_*` calls on the owning thread.
    let handle: UnsafeMutableRawPointer
    private var headerList: UnsafeMutablePointer<curl_slist>?

    /// A handle for `url` with the configuration's settings and request headers; `nil` when
    /// libcurl cannot be loaded (``CurlRequest/loadFailure``) or is out of memory.
    /// - Parameter leadingHeaders: sent before the configured headers (a radio's
    ///   `Icy-MetaData: 1`).
    convenience init?(url: String, configuration: PlayerConfiguration, leadingHeaders: [(String, String)] = []) {
        let configured = configuration.requestHeaders.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        self.init(url: url, maxRedirects: configuration.maxRedirects, caCertificatesPath: configuration.caCertificatesPath,
                  userAgent: configuration.userAgent, connectTimeout: configuration.connectTimeout,
                  headers: leadingHeaders + configured)
    }

    /// A handle from the settings' parts, for a client without a ``PlayerConfiguration``.
    /// A header with an empty value is given to libcurl as `Name:`, which removes a header
    /// libcurl would add (`Expect`), rather than sending it empty.
    init?(url: String, maxRedirects: Int, caCertificatesPath: String?, userAgent: String, connectTimeout: Double,
          headers: [(String, String)]) {
        guard CurlRequest.loadFailure == nil, let handle = sp_curl_easy_init() else { return nil }
        self.handle = handle
        CurlRequest.configure(handle, url: url, maxRedirects: maxRedirects, caCertificatesPath: caCertificatesPath,
                              userAgent: userAgent, connectTimeout: connectTimeout)
        for (name, value) in headers {
            headerList = sp_curl_slist_append(headerList, value.isEmpty ? "\(name):" : "\(name): \(value)")
        }
        if let headerList { sp_curl_setopt_pointer(handle, CURLOPT_HTTPHEADER, headerList) }
    }

    deinit {
        sp_curl_easy_cleanup(handle)
        sp_curl_slist_free_all(headerList)
    }

    /// Asks for bytes `start` to `end` (inclusive; to the end of the resource when `nil`).
    /// CURLOPT_RANGE rather than RESUME_FROM: a server that ignores ranges answers 200 with the
    /// whole body, which the caller skips through instead of failing.
    func requestRange(from start: Int, through end: Int? = nil) {
        sp_curl_setopt_pointer(handle, CURLOPT_RANGE, "\(start)-\(end.map(String.init) ?? "")")
    }

    /// The HTTP status of the last response (0 before one came).
    var responseCode: Int {
        var value = 0
        sp_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &value)
        return value
    }
}
