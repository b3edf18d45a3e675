import CCurl
import Synchronization

/// The engine's one libcurl driver: one thread, one multi handle, every transfer of the
/// process on it, each through a ``CurlTransferHandler``.
///
/// One loop rather than a thread per input or client: transfers share the multi handle's
/// connection cache and DNS cache (a playlist, its key and its segments reuse one connection),
/// a stop reaches any transfer at once (the thread sleeps in `curl_multi_poll`, which
/// `curl_multi_wakeup` interrupts from any thread), and no other thread blocks in libcurl.
///
/// Other threads talk to the loop only through its inbox (added transfers, cancellations and
/// their flags, resumes of paused transfers) and `curl_multi_wakeup`. Once added, an easy handle is used on
/// the loop thread alone until its handler hears ``CurlTransferHandler/curlDone(_:)``; the
/// handle is then off the multi handle, and its owner may read it again.
///
/// ``shared`` is process-wide and starts its thread lazily, at the first transfer: the engine,
/// the API clients and any number of players share it without wiring. Its users take it when
/// they start a transfer, not when they are made, so that nothing loads libcurl before a
/// request needs it but what begins it ahead: a new ``Player`` its `dlopen`, the `streamplay`
/// command all of it when its arguments name something on the network. The thread ends once
/// no transfer has been left for ``idleTime`` (the multi handle and its caches stay), so that a
/// stopped player leaves no thread behind, yet a seek that replaces its one transfer dozens of
/// times in a row (a FLAC bisection) does not make a new pthread for each; the next transfer
/// after that starts a new one.
final class CurlLoop: @unchecked Sendable {
    /// The loop every request of the process runs on; `nil` when libcurl cannot be loaded
    /// (``CurlRequest/loadFailure`` says why) or `curl_multi_init` failed. Its first use loads
    /// libcurl, or waits for a load begun ahead.
    static let shared = CurlLoop()

    /// How long the thread outlives its last transfer, in milliseconds: long enough to carry a
    /// restart's cancel-then-add (microseconds to milliseconds apart), short enough that the
    /// thread is gone soon after a player stops (the tests allow half a second).
    static let idleTime = 200

    /// A transfer handed to the loop. Its easy handle crosses threads once, through the inbox,
    /// and its sender does not touch it again until the handler hears it is done.
    private struct Entry: @unchecked Sendable {
        let easy: CurlEasy
        let handler: any CurlTransferHandler
        let cancelFlag: CancelFlag
    }

    /// Set by ``cancel(_:)`` before it wakes the loop, read by the write callback: a cancelled
    /// transfer stops taking bytes at once, even within the `curl_multi_perform` call that
    /// runs while the cancel waits in the inbox (libcurl reads up to many buffers in one call).
    private final class CancelFlag: Sendable {
        let isSet = Atomic<Bool>(false)
    }

    /// What other threads hand over; read and emptied by the loop thread.
    private struct Inbox {
        var added: [(id: Int, entry: Entry)] = []
        var cancelled: [Int] = []
        var resumed: [Int] = []
        var nextID = 0
        /// The cancel flags of the transfers added and not yet removed, by id.
        var flags: [Int: CancelFlag] = [:]
        /// The running thread; `nil` when none runs (the next `add` starts one).
        var thread: EngineThread?
        /// Threads started so far, for the tests of the idle time.
        var threadsStarted = 0
    }

    /// The context libcurl's callbacks get: a transfer's handler, kept alive by `active` until
    /// its handle is off the multi handle and no longer points here.
    private final class Context {
        let handler: any CurlTransferHandler
        let cancelFlag: CancelFlag
        init(handler: any CurlTransferHandler, cancelFlag: CancelFlag) {
            self.handler = handler
            self.cancelFlag = cancelFlag
        }
    }

    private let inbox = Mutex(Inbox())
    /// Created once; `curl_multi_wakeup` is the one call other threads make on it.
    private let multi: UnsafeMutableRawPointer

    // Loop thread only.
    private var active: [Int: (entry: Entry, context: Context)] = [:]
    private var ids: [UnsafeMutableRawPointer: Int] = [:]

    /// A loop of its own, for tests; the engine uses ``shared``. `nil` when libcurl cannot be
    /// loaded or `curl_multi_init` fails.
    init?() {
        guard CurlRequest.loadFailure == nil, let multi = sp_curl_multi_init() else { return nil }
        self.multi = multi
        // No HTTP/2 multiplexing: the transfers of one host get connections of their own (and
        // reuse them one after another), as when each input had its own multi handle. A stream
        // that stays paused for a full ring must not hold up a playlist, a segment or an API
        // call to the same host on a shared connection, where libcurl also buffers a paused
        // stream's data without a bound.
        sp_curl_multi_setopt_long(multi, CURLMOPT_PIPELINING, Int(CURLPIPE_NOTHING))
    }

    deinit {
        sp_curl_multi_cleanup(multi)
    }

    /// Whether the loop's thread runs, and how many it started so far. For the tests.
    var threadState: (running: Bool, started: Int) {
        inbox.withEngineLock { ($0.thread != nil, $0.threadsStarted) }
    }

    /// A new transfer's id, for a caller that may cancel before ``add(_:handler:id:cancelled:)``
    /// returns (an async task's cancellation handler).
    func makeID() -> Int {
        inbox.withEngineLock { inbox in
            inbox.nextID += 1
            return inbox.nextID
        }
    }

    /// Hands `easy` to the loop thread, which starts its transfer and reports to `handler`.
    /// From now until `handler` hears ``CurlTransferHandler/curlDone(_:)``, only the loop
    /// thread touches `easy`.
    /// - Parameters:
    ///   - id: from ``makeID()``; a new one when `nil`.
    ///   - cancelled: `true` to end it as cancelled at once (its task was cancelled already).
    /// - Returns: the id, for ``cancel(_:)`` and ``resume(_:)``.
    @discardableResult
    func add(_ easy: CurlEasy, handler: any CurlTransferHandler, id: Int? = nil, cancelled: Bool = false) -> Int {
        let flag = CancelFlag()
        if cancelled { flag.isSet.store(true, ordering: .relaxed) }
        let entry = Entry(easy: easy, handler: handler, cancelFlag: flag)
        let id = inbox.withEngineLock { inbox -> Int in
            let id = id ?? {
                inbox.nextID += 1
                return inbox.nextID
            }()
            inbox.added.append((id, entry))
            inbox.flags[id] = flag
            if cancelled { inbox.cancelled.append(id) }
            if inbox.thread == nil {
                inbox.thread = EngineThread(name: "sp-curl-loop") { [self] in run() }
                inbox.threadsStarted += 1
            }
            return id
        }
        wakeUp()
        return id
    }

    /// Ends transfer `id`, if it has not ended: its handler hears ``CurlTransferEnd/cancelled``
    /// on the loop thread (or the result libcurl had already reached). From this call on, the
    /// handler is handed no more body bytes, besides those of a callback already under way.
    /// Any thread, the loop's included.
    func cancel(_ id: Int) {
        inbox.withEngineLock { inbox in
            // Raised before the wake-up: a `curl_multi_perform` under way stops taking bytes.
            inbox.flags[id]?.isSet.store(true, ordering: .releasing)
            inbox.cancelled.append(id)
        }
        wakeUp()
    }

    /// Resumes transfer `id` after its handler paused it (`curl_easy_pause` must be called on
    /// the loop thread, so it goes through the inbox). Any thread; harmless if it is not paused.
    func resume(_ id: Int) {
        inbox.withEngineLock { $0.resumed.append(id) }
        wakeUp()
    }

    /// Interrupts the loop thread's `curl_multi_poll`. Any thread.
    private func wakeUp() {
        sp_curl_multi_wakeup(multi)
    }

    private func run() {
        // When the loop last found itself without a transfer; `nil` while it has some.
        var idleSince: ContinuousClock.Instant?
        while true {
            // The decision to end the thread is taken under the lock that `add` takes, so a
            // transfer added meanwhile either is seen here or starts a new thread.
            let work = inbox.withEngineLock { inbox -> (added: [(id: Int, entry: Entry)], cancelled: [Int], resumed: [Int])? in
                defer {
                    inbox.added = []
                    inbox.cancelled = []
                    inbox.resumed = []
                }
                if inbox.added.isEmpty && inbox.cancelled.isEmpty && active.isEmpty,
                   let idleSince, ContinuousClock.now - idleSince >= .milliseconds(Self.idleTime) {
                    // Releasing the EngineThread detaches this thread, which nobody joins.
                    inbox.thread = nil
                    return nil
                }
                return (inbox.added, inbox.cancelled, inbox.resumed)
            }
            guard let work else { return }
            for (id, entry) in work.added { start(entry, id: id) }
            for id in work.cancelled {
                remove(id)?.handler.curlDone(.cancelled)
            }
            for id in work.resumed {
                guard let (entry, _) = active[id] else { continue }
                sp_curl_easy_pause(entry.easy.handle, sp_curl_pause_continue)
            }
            var running: Int32 = 0
            sp_curl_multi_perform(multi, &running)
            var left: Int32 = 0
            while let message = sp_curl_multi_info_read(multi, &left) {
                guard message.pointee.msg == CURLMSG_DONE, let handle = message.pointee.easy_handle,
                      let id = ids[handle] else { continue }
                let code = message.pointee.data.result
                remove(id)?.handler.curlDone(.finished(code))
            }
            var timeout: Int32 = 1000
            if active.isEmpty {
                // Idle: wait for a new transfer (`add` wakes the poll) until the idle time is up.
                let since = idleSince ?? .now
                idleSince = since
                let remaining = Self.idleTime - Int((ContinuousClock.now - since).inSeconds * 1000)
                timeout = Int32(max(remaining, 0))
            } else {
                idleSince = nil
            }
            sp_curl_multi_poll(multi, nil, 0, timeout, nil)
        }
    }

    /// Puts a transfer on the multi handle, its callbacks pointing at its handler. One that
    /// cannot be added ends at once, with `CURLE_FAILED_INIT`: its caller waits for an end.
    private func start(_ entry: Entry, id: Int) {
        let handle = entry.easy.handle
        guard ids[handle] == nil else {
            // Its handle is on this loop already (a caller's mistake): leave that transfer be.
            forget(id)
            entry.handler.curlDone(.finished(CURLE_FAILED_INIT))
            return
        }
        let context = Context(handler: entry.handler, cancelFlag: entry.cancelFlag)
        let raw = Unmanaged.passUnretained(context).toOpaque()
        sp_curl_setopt_pointer(handle, CURLOPT_WRITEDATA, raw)
        sp_curl_setopt_data_callback(handle, CURLOPT_WRITEFUNCTION) { data, size, count, raw in
            // No context: the handle was let go of (it is never called then; 0 ends it).
            guard let raw else { return 0 }
            let context = Unmanaged<Context>.fromOpaque(raw).takeUnretainedValue()
            // Cancelled: keep the bytes in libcurl until the cancel, next in the inbox, ends it.
            if context.cancelFlag.isSet.load(ordering: .acquiring) { return sp_curl_writefunc_pause }
            let bytes = size * count
            switch context.handler.curlData(UnsafeRawBufferPointer(start: data, count: bytes)) {
            case .take: return bytes
            case .pause: return sp_curl_writefunc_pause
            case .abort: return 0
            }
        }
        sp_curl_setopt_pointer(handle, CURLOPT_HEADERDATA, raw)
        sp_curl_setopt_data_callback(handle, CURLOPT_HEADERFUNCTION) { data, size, count, raw in
            guard let raw else { return 0 }
            let context = Unmanaged<Context>.fromOpaque(raw).takeUnretainedValue()
            context.handler.curlHeader(UnsafeRawBufferPointer(start: data, count: size * count))
            return size * count
        }
        guard sp_curl_multi_add_handle(multi, handle) == CURLM_OK else {
            // Not on the multi handle: no CURLMSG_DONE will ever come for it.
            detach(handle)
            withExtendedLifetime(context) {}
            forget(id)
            entry.handler.curlDone(.finished(CURLE_FAILED_INIT))
            return
        }
        active[id] = (entry, context)
        ids[handle] = id
    }

    /// Takes a transfer off the multi handle; its handle is its owner's again.
    private func remove(_ id: Int) -> Entry? {
        guard let (entry, context) = active.removeValue(forKey: id) else { return nil }
        ids[entry.easy.handle] = nil
        sp_curl_multi_remove_handle(multi, entry.easy.handle)
        detach(entry.easy.handle)
        // The context is freed only now: until the handle was off the multi handle and pointed
        // nowhere, libcurl could still have called back with it.
        withExtendedLifetime(context) {}
        forget(id)
        return entry
    }

    /// Points a handle's callbacks at no context, so that a handle used again (a reconnect
    /// reuses none, but its owner may read it) never reaches a freed one.
    private func detach(_ handle: UnsafeMutableRawPointer) {
        sp_curl_setopt_pointer(handle, CURLOPT_WRITEDATA, nil)
        sp_curl_setopt_pointer(handle, CURLOPT_HEADERDATA, nil)
    }

    /// Drops a transfer's cancel flag: its id will not be cancelled again.
    private func forget(_ id: Int) {
        _ = inbox.withEngineLock { $0.flags.removeValue(forKey: id) }
    }
}
