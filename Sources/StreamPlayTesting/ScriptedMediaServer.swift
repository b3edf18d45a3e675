import StreamPlay
import Synchronization

/// A `MediaTransport` that serves given bytes at given URLs, with scripted faults, for tests
/// of a `Player` with no network: give it with `PlayerConfiguration.mediaTransport`.
///
/// Only the network is replaced. The input of the engine still makes its Range requests,
/// detects stalls, reconnects with its backoff, honours Retry-After and renews expired URLs
/// through the refresher, so a test sees what a listener on a bad network would hear:
///
/// ```swift
/// let server = ScriptedMediaServer()
/// server.serve(mp3, at: "https://media.test/track.mp3")
/// server.script("https://media.test/track.mp3", .cut(atByte: 5_000))
/// var configuration = PlayerConfiguration(output: .custom { sink })
/// configuration.mediaTransport = server
/// ```
///
/// Each request takes the next answer scripted for its URL (``ScriptedMediaAnswer/normal`` once
/// none is left) and is recorded (``requests``). Bodies are handed over in chunks of
/// ``chunkSize`` bytes, from a thread of each transfer's own, as fast as the input takes them.
public final class ScriptedMediaServer: MediaTransport {
    /// A resource and the answers still scripted for it.
    private struct Resource {
        var bytes: [UInt8]
        var contentType: String
        var acceptsRanges: Bool
        var script: [ScriptedMediaAnswer] = []
    }

    private struct State {
        var resources: [String: Resource] = [:]
        var requests: [RecordedMediaRequest] = []
        var stalledTransfers = 0
    }

    private let state = Mutex(State())

    /// Body bytes handed to the input in one call.
    public let chunkSize: Int

    /// A server with nothing to serve yet.
    /// - Parameter chunkSize: body bytes per call to the input (libcurl hands up to 16 KiB).
    public init(chunkSize: Int = 4096) {
        self.chunkSize = max(1, chunkSize)
    }

    /// Serves `bytes` at `url` from now on, replacing what was served there (its script too).
    /// - Parameters:
    ///   - bytes: the resource, whole.
    ///   - url: where it is served, exactly as the player asks for it.
    ///   - contentType: the `Content-Type` sent.
    ///   - acceptsRanges: `false` for a server that answers every request with the whole body
    ///     and no `Accept-Ranges`, as a live stream or a simple server does.
    public func serve(_ bytes: [UInt8], at url: String, contentType: String = "audio/mpeg", acceptsRanges: Bool = true) {
        state.withEngineLock { $0.resources[url] = Resource(bytes: bytes, contentType: contentType, acceptsRanges: acceptsRanges) }
    }

    /// Queues answers for the next requests to `url`, one each, in order; after them, requests
    /// get ``ScriptedMediaAnswer/normal`` answers. The URL must be served.
    public func script(_ url: String, _ answers: ScriptedMediaAnswer...) {
        state.withEngineLock { state in
            precondition(state.resources[url] != nil, "script for a URL that is not served: \(url)")
            state.resources[url]?.script.append(contentsOf: answers)
        }
    }

    /// Every request received so far, in order.
    public var requests: [RecordedMediaRequest] { state.withEngineLock { $0.requests } }

    /// How many transfers have reached the byte of their ``ScriptedMediaAnswer/stall(atByte:)``:
    /// the input took every byte before it, and nothing more comes. A test that drives the
    /// input's stall timeout with a ``ManualClock`` waits for this before it advances the clock.
    public var stalledTransfers: Int { state.withEngineLock { $0.stalledTransfers } }

    /// The requests received for `url`, in order.
    public func requests(to url: String) -> [RecordedMediaRequest] {
        requests.filter { $0.url == url }
    }

    /// Answers `request` from what is served at its URL (404 when nothing is), on a thread of
    /// its own.
    public func startTransfer(_ request: MediaRequest, receiver: any MediaTransferReceiver) -> any MediaTransferControl {
        let plan = state.withEngineLock { state -> ScriptedMediaTransfer.Plan in
            guard var resource = state.resources[request.url] else {
                state.requests.append(RecordedMediaRequest(request: request, answer: .status(404), receivedAt: .now))
                return .status(404, retryAfter: nil)
            }
            let answer = resource.script.isEmpty ? .normal : resource.script.removeFirst()
            state.resources[request.url] = resource
            state.requests.append(RecordedMediaRequest(request: request, answer: answer, receivedAt: .now))
            return ScriptedMediaTransfer.Plan(answer: answer, to: request, bytes: resource.bytes,
                                              contentType: resource.contentType, acceptsRanges: resource.acceptsRanges)
        }
        return ScriptedMediaTransfer.start(plan, receiver: receiver, chunkSize: chunkSize) { [self] in
            state.withEngineLock { $0.stalledTransfers += 1 }
        }
    }
}
