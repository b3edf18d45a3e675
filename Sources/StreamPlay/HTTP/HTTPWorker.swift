import CCurl
import CStreamPlayShim
import FoundationEssentials
import Synchronization

/// The thread of an ``CurlHTTPClient``: one curl multi handle, the transfers on it, and an inbox
/// of new transfers and cancellations that other threads fill.
final class HTTPWorker: @unchecked Sendable {
    private struct Inbox {
        var added: [HTTPTransfer] = []
        var cancelled: Set<Int> = []
        var stopping = false
        var thread: EngineThread?
        var nextID = 0
    }

    private let inbox = Mutex(Inbox())
    private let configuration: CurlHTTPClient.Configuration
    /// Created once; curl_multi_wakeup is the one call other threads make on it.
    private let multi: UnsafeMutableRawPointer

    // Worker thread only.
    private var active: [Int: HTTPTransfer] = [:]
    private var byHandle: [UnsafeMutableRawPointer: HTTPTransfer] = [:]

    init(configuration: CurlHTTPClient.Configuration) {
        self.configuration = configuration
        multi = curl_multi_init()!
    }

    deinit {
        curl_multi_cleanup(multi)
    }

    func makeID() -> Int {
        inbox.withEngineLock { inbox in
            inbox.nextID += 1
            return inbox.nextID
        }
    }

    /// Hands a transfer to the thread (started on first use).
    func submit(_ transfer: HTTPTransfer, cancelled: Bool) {
        let accepted = inbox.withEngineLock { inbox -> Bool in
            guard !inbox.stopping else { return false }
            inbox.added.append(transfer)
            if cancelled { inbox.cancelled.insert(transfer.id) }
            if inbox.thread == nil {
                inbox.thread = EngineThread(name: "sp-http") { [self] in run() }
            }
            return true
        }
        if accepted {
            curl_multi_wakeup(multi)
        } else {
            transfer.complete(.failure(.shutDown))
        }
    }

    func cancel(_ id: Int) {
        inbox.withEngineLock { _ = $0.cancelled.insert(id) }
        curl_multi_wakeup(multi)
    }

    /// Ends every transfer and the thread; returns once the thread is gone.
    func shutDown() {
        let thread = inbox.withEngineLock { inbox -> EngineThread? in
            inbox.stopping = true
            return inbox.thread
        }
        curl_multi_wakeup(multi)
        thread?.join()
    }

    private func run() {
        while true {
            let (added, cancelled, stopping) = inbox.withEngineLock { inbox in
                defer {
                    inbox.added = []
                    inbox.cancelled = []
                }
                return (inbox.added, inbox.cancelled, inbox.stopping)
            }
            for transfer in added {
                if let error = transfer.prepare() {
                    transfer.complete(.failure(error))
                    continue
                }
                active[transfer.id] = transfer
                byHandle[transfer.handle] = transfer
                curl_multi_add_handle(multi, transfer.handle)
            }
            for id in cancelled {
                guard let transfer = remove(id) else { continue }
                transfer.complete(.failure(.cancelled(url: RedactedURL.describe(transfer.request.url))))
            }
            if stopping {
                for id in Array(active.keys) { remove(id)?.complete(.failure(.shutDown)) }
                return
            }
            var running: Int32 = 0
            curl_multi_perform(multi, &running)
            var left: Int32 = 0
            while let message = curl_multi_info_read(multi, &left) {
                guard message.pointee.msg == CURLMSG_DONE, let handle = message.pointee.easy_handle,
                      let transfer = byHandle[handle] else { continue }
                let code = message.pointee.data.result
                remove(transfer.id)
                transfer.complete(transfer.outcome(code))
            }
            curl_multi_poll(multi, nil, 0, 1000, nil)
        }
    }

    @discardableResult
    private func remove(_ id: Int) -> HTTPTransfer? {
        guard let transfer = active.removeValue(forKey: id) else { return nil }
        byHandle[transfer.handle] = nil
        curl_multi_remove_handle(multi, transfer.handle)
        return transfer
    }
}
