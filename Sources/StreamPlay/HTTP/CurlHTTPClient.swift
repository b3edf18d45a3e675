import CCurl
import FoundationEssentials
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// An async HTTP client on the engine's libcurl, for API calls, token requests and uploads: the
/// ``HTTPTransport`` of real use.
///
/// It is named for libcurl, which does its work, so that it does not clash with other
/// libraries' `HTTPClient` types (AsyncHTTPClient's, for one) in code that imports both, and
/// so that it reads as one transport among others (a test's in-memory transport stands in for
/// it wherever ``HTTPTransport`` is asked for).
///
/// The requests run on the engine's `CurlLoop` (the one thread that drives libcurl for the
/// streams too), so no request ever blocks the Swift cooperative pool, and a cancelled task
/// stops its transfer at once (the loop is woken, not polled). TLS verification, proxies and
/// the User-Agent follow the same rules as the engine's streams.
///
/// ```swift
/// let client = CurlHTTPClient()
/// let response = try await client.send(HTTPRequest(url: "https://api.example.org/me"))
/// ```
public final class CurlHTTPClient: HTTPTransport {
    /// Settings shared by every request of a client.
    public struct Configuration: Sendable {
        /// Sent with every request.
        public var userAgent = "StreamPlay/0.1.0"
        /// TCP and TLS connection, in seconds.
        public var connectTimeout = 10.0
        /// The whole exchange of a request that sets no timeout of its own, in seconds.
        public var requestTimeout = 60.0
        /// PEM file of certificate authorities for TLS verification (the system's when `nil`).
        public var caCertificatesPath: String?
        /// The largest response body accepted.
        public var maximumResponseSize = 16 << 20
        /// Redirects followed for a request that follows them.
        public var maxRedirects = 10

        /// The defaults.
        public init() {}
    }

    /// The settings of this client.
    public let configuration: Configuration

    /// A client with these settings; its requests share the engine's curl thread. Making one
    /// does not load libcurl: its first request does.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Sends `request` and returns the response, whatever its status.
    /// - Parameters:
    ///   - request: what to send.
    ///   - uploadProgress: called with (bytes sent, bytes to send) while a body goes out, in a
    ///     task of its own (never on the thread that drives the transfers, so it may take its
    ///     time, but it runs on the shared task pool and must not block a thread); while it
    ///     runs, only the newest figures are kept for its next call. Its last call returns
    ///     before `send` does, unless the task was cancelled: then `send` does not wait for it.
    /// - Throws: ``HTTPClientError`` when no response came (network, cancellation).
    public func send(_ request: HTTPRequest,
                     uploadProgress: (@Sendable (_ sent: Int64, _ total: Int64) -> Void)? = nil)
        async throws(HTTPClientError) -> HTTPResponse {
        let lowered = request.url.lowercased()
        guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://") else {
            throw .invalidRequest("not an http(s) URL: \(RedactedURL.describe(request.url))")
        }
        guard let loop = CurlLoop.shared else {
            let reason = CurlRequest.loadFailure ?? "curl_multi_init failed"
            throw .network(.transferFailed(url: RedactedURL.describe(request.url), reason: reason))
        }
        if case .multipart(let form) = request.body {
            for case .file(_, let path, _, _) in form.parts where access(path, R_OK) != 0 {
                throw .invalidRequest("cannot read \(path) to upload")
            }
        }
        let id = loop.makeID()
        let progress = uploadProgress.map { UploadProgressRelay($0) }
        let cancellation = Mutex(CancellationState.notAdded)
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<HTTPResponse, HTTPClientError>, Never>) in
                let transfer = HTTPTransfer(id: id, request: request, configuration: configuration,
                                            progress: progress, continuation: continuation)
                if let error = transfer.prepare() {
                    transfer.complete(.failure(error))
                    return
                }
                // Added under the lock the cancellation handler takes: a cancellation before
                // this adds it as cancelled, one after cancels it on the loop.
                cancellation.withEngineLock { state in
                    loop.add(transfer.easy, handler: transfer, id: id, cancelled: state == .cancelledBeforeAdd)
                    state = .added
                }
            }
        } onCancel: {
            let added = cancellation.withEngineLock { state -> Bool in
                if state == .notAdded { state = .cancelledBeforeAdd }
                return state == .added
            }
            if added { loop.cancel(id) }
        }
        await progress?.finish()
        return try result.get()
    }
}

/// Where a request stands for its task's cancellation handler, which may run before, during or
/// after the request is handed to the loop.
private enum CancellationState {
    /// Not on the loop yet, and not cancelled.
    case notAdded
    /// Cancelled before it reached the loop: it is added as cancelled.
    case cancelledBeforeAdd
    /// On the loop: a cancellation goes there.
    case added
}
