import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Reads an HLS media playlist's segments (packed MP3 or AAC, MPEG-TS, fragmented MP4 after its
/// EXT-X-MAP init segment), one after another, into the ring on a dedicated thread, so that the
/// decoder sees one continuous stream.
///
/// Byte offsets count the audio bytes written for a generation, from the segment it started at.
/// Tags and header frames are stripped per segment (``SegmentHeaderFilter``), AES-128 segments
/// are decrypted as they arrive (``SegmentDecryptor``), and where a discontinuity begins a new
/// stream its offset is marked in ``InputControl`` for the decoder to start afresh. A live
/// playlist is reloaded at its target duration (half of it when it had not changed, as RFC 8216
/// asks) and followed by media sequence number, so no segment plays twice or is skipped while
/// the window holds it. A segment whose transfer breaks is resumed at the byte it stopped at.
final class HLSInputSource: InputSource, @unchecked Sendable {
    /// The shortest wait between two reloads of a live playlist, in seconds, whatever its target
    /// duration says: a target of 0 (or its half after a reload that brought nothing) would
    /// otherwise reload the playlist back to back.
    static let minimumReloadInterval = 0.5

    let control: InputControl
    /// The playlist as first read. For a complete (VOD) playlist this is the timeline seeks use.
    let initialPlaylist: HLSMediaPlaylist
    var segmentedPlaylist: HLSMediaPlaylist? { initialPlaylist }
    /// Replaced by the refresher's answer when signed URLs expired.
    private var playlistURL: String
    private let urlRefresher: BlockingURLRefresher?
    private let ring: ByteRing
    private let configuration: PlayerConfiguration
    private let onReconnect: @Sendable () -> Void
    private let wake = ThreadSignal()
    /// `wake`, as the clock is given it to sleep on (and to signal when it moves).
    private let wakeUp: WakeUpSignal
    /// The time of the live playlist's reloads, its stall timeout and the segments' backoff.
    private let clock: any PlaybackClock
    private var thread: EngineThread?

    // Input thread only.
    private var playlist: HLSMediaPlaylist
    private var keys: [String: [UInt8]] = [:]
    private var seenCommands = -1
    private var job: Job?
    /// Reloads in a row whose window lay behind where reading is (``rejoinIfWindowWentBack()``).
    private var reloadsBehindWindow = 0

    /// The generation being read.
    private struct Job {
        var generation: Int
        var nextSequence: Int
        /// Bytes of this generation written so far (or dropped, below `skipTo`).
        var position = 0
        /// Bytes below this offset are dropped (a restart at an offset, not at a segment).
        var skipTo: Int
        var isFirstSegment = true
        /// The next segment starts a new stream whatever its tags say (the live window was
        /// rejoined after its media sequence went back).
        var startsNewStream = false
        /// The EXT-X-MAP init segment written last in this generation.
        var writtenMap: HLSInitializationMap?
    }

    /// The playlist for a live stream starts this many segments from its end (RFC 8216 6.3.3
    /// asks for at least three target durations from the end).
    private static let liveStartDistance = 3

    /// - Parameter urlRefresher: gives a fresh playlist URL when a segment is refused with 403
    ///   or 410, as signed CDN URLs are once they expire; the playlist is read again from it.
    init(playlistURL: String, playlist: HLSMediaPlaylist, ring: ByteRing, control: InputControl,
         configuration: PlayerConfiguration, urlRefresher: URLRefresher? = nil,
         onReconnect: @escaping @Sendable () -> Void = {}) {
        self.playlistURL = playlistURL
        self.urlRefresher = urlRefresher.map { BlockingURLRefresher(refresh: $0, clock: configuration.clock) }
        self.initialPlaylist = playlist
        self.playlist = playlist
        self.ring = ring
        self.control = control
        self.configuration = configuration
        self.onReconnect = onReconnect
        self.clock = configuration.clock
        self.wakeUp = WakeUpSignal(wake)
        let wake = self.wake
        ring.setProducerWaker { wake.signal() }
        control.publish(info: InputInfo(duration: playlist.isComplete ? playlist.totalDuration : nil))
        thread = EngineThread(name: "sp-hls") { [self] in run() }
    }

    func start(at offset: Int, generation: Int) {
        control.requestRestart(.init(offset: offset, generation: generation))
        wake.signal()
    }

    /// Starts reading at segment `index` of the initial (VOD) playlist.
    func start(atSegment index: Int, generation: Int) {
        control.requestRestart(.init(offset: 0, generation: generation, segment: index))
        wake.signal()
    }

    func stop() {
        control.requestStop()
        wake.signal()
        thread?.join()
        ring.setProducerWaker(nil)
    }

    private var redactedPlaylistURL: String { RedactedURL.describe(playlistURL) }

    // MARK: Input thread

    private func run() {
        var lastReload = clock.now
        var lastNewSegment = clock.now
        var reloadInterval = max(playlist.targetDuration, Self.minimumReloadInterval)
        var reloadFailures = 0
        while true {
            let commands = control.takeCommands(since: &seenCommands)
            if commands.stop { break }
            if let restart = commands.restart {
                ring.beginGeneration(restart.generation)
                job = Job(generation: restart.generation, nextSequence: firstSequence(segment: restart.segment),
                          skipTo: restart.offset)
            }
            guard let current = job else {
                wake.wait(timeout: 1)
                continue
            }
            if let segment = playlist.segments.first(where: { $0.sequence == current.nextSequence }) {
                switch fetch(segment) {
                case .done:
                    job?.nextSequence += 1
                    job?.isFirstSegment = false
                    job?.startsNewStream = false
                case .interrupted:
                    // A restart replaces the job at the top of the loop, a stop ends it. Should
                    // the command have asked nothing of this generation, the segment is read
                    // again from its start, and what it already wrote is dropped, not played twice.
                    if let reached = job?.position {
                        job = current
                        job?.skipTo = max(current.skipTo, reached)
                    }
                    continue
                case .failed(let error):
                    // A live segment that is gone (the window moved on while the buffer was
                    // full, during a pause): catch up with the window rather than fail.
                    if !playlist.isComplete, Self.isGone(error), catchUpWithWindow() { continue }
                    control.finish(generation: current.generation, with: .failed(error))
                    job = nil
                }
                continue
            }
            if playlist.isComplete {
                control.finish(generation: current.generation, with: .finished)
                job = nil
                continue
            }
            // Live, at the edge: wait for the playlist to grow.
            let now = clock.now
            let sinceReload = now - lastReload
            guard sinceReload >= .milliseconds(Int(reloadInterval * 1000)) else {
                let wait = Double(reloadInterval) - sinceReload.inSeconds
                clock.sleep(until: now + .seconds(min(max(wait, 0.01), 0.5)), wakeUp: wakeUp)
                continue
            }
            lastReload = now
            let previousLast = playlist.segments.last?.sequence
            do throws(PlayerError) {
                try reload()
                reloadFailures = 0
            } catch {
                reloadFailures += 1
                if reloadFailures > configuration.reconnect.maximumRetries {
                    control.finish(generation: current.generation, with: .failed(error))
                    job = nil
                }
                continue
            }
            let grew = playlist.segments.last?.sequence != previousLast
            // RFC 8216 6.3.4: half the target duration after a reload that brought nothing new.
            reloadInterval = max(grew ? playlist.targetDuration : playlist.targetDuration / 2, Self.minimumReloadInterval)
            if grew {
                lastNewSegment = clock.now
            } else if clock.now - lastNewSegment
                        > .seconds(max(configuration.stallTimeout, 3 * playlist.targetDuration)) {
                control.finish(generation: current.generation,
                               with: .failed(.timedOut(url: redactedPlaylistURL, seconds: configuration.stallTimeout)))
                job = nil
                continue
            }
            skipToWindowIfBehind()
            rejoinIfWindowWentBack()
        }
    }

    /// A 404 or 410 for a segment: it left the server.
    private static func isGone(_ error: PlayerError) -> Bool {
        if let code = error.status { return code == 404 || code == 410 }
        return false
    }

    /// Reloads the live playlist after a segment was gone; `true` when reading can go on
    /// from the window's first segment.
    private func catchUpWithWindow() -> Bool {
        let before = job?.nextSequence
        do throws(PlayerError) {
            try reload()
        } catch {
            return false
        }
        skipToWindowIfBehind()
        return job?.nextSequence != before
    }

    /// Fell behind the live window: the segments in between are gone from the server.
    private func skipToWindowIfBehind() {
        guard let next = job?.nextSequence, let first = playlist.segments.first, next < first.sequence else { return }
        configuration.logger.warning("live playlist moved past unplayed segments", metadata: [
            "url": "\(redactedPlaylistURL)", "missed": "\(first.sequence - next)",
        ])
        job?.nextSequence = first.sequence
    }

    /// The window's media sequence went back past where reading is, by more than a window (an
    /// encoder that restarted its numbering): nothing to come would ever match the next number,
    /// and the stream would go silent with its playlist still growing. Reading goes on from the
    /// live edge (the first segment, once the playlist is complete), as a new stream. A live
    /// playlist must show it on two reloads in a row: a CDN may serve one stale copy, older
    /// than a short window.
    private func rejoinIfWindowWentBack() {
        guard let next = job?.nextSequence, let last = playlist.segments.last,
              next - (last.sequence + 1) > playlist.segments.count else {
            reloadsBehindWindow = 0
            return
        }
        reloadsBehindWindow += 1
        guard playlist.isComplete || reloadsBehindWindow >= 2 else { return }
        reloadsBehindWindow = 0
        let rejoined = firstSequence(segment: nil)
        configuration.logger.warning("live playlist's media sequence went back", metadata: [
            "url": "\(redactedPlaylistURL)", "expected": "\(next)", "from": "\(rejoined)",
        ])
        job?.nextSequence = rejoined
        job?.startsNewStream = true
    }

    /// The media sequence number a generation starts at: the segment asked for, the first
    /// segment of a complete playlist, or near the live edge.
    private func firstSequence(segment: Int?) -> Int {
        let segments = playlist.segments
        guard !segments.isEmpty else { return playlist.mediaSequence }
        if let segment { return segments[min(max(segment, 0), segments.count - 1)].sequence }
        if playlist.isComplete { return segments[0].sequence }
        return segments[max(segments.count - Self.liveStartDistance, 0)].sequence
    }

    private func reload() throws(PlayerError) {
        let data = try ResourceFetcher.fetch(playlistURL, configuration: configuration, wakeUp: wakeUp) { [self] in
            control.hasCommands(since: seenCommands)
        }
        guard case .media(let fresh) = try HLSPlaylistParser.parse(String(decoding: data, as: UTF8.self),
                                                                   url: playlistURL) else {
            throw .invalidPlaylist(url: redactedPlaylistURL, reason: "a live media playlist turned into a master playlist")
        }
        playlist = fresh
    }

    private enum FetchResult {
        case done
        case interrupted
        case failed(PlayerError)
    }

    /// Reads one segment into the ring, resuming after drops. Returns when it is all there,
    /// when a command came, or when it cannot be read.
    private func fetch(_ segment: HLSSegment) -> FetchResult {
        guard let job else { return .interrupted }
        let redacted = RedactedURL.describe(segment.url)
        var decryptor: SegmentDecryptor?
        do throws(PlayerError) {
            if let key = segment.key {
                decryptor = try SegmentDecryptor(key: try fetchKey(key.url),
                                                 iv: key.initializationVector(sequence: segment.sequence))
            }
        } catch {
            return control.hasCommands(since: seenCommands) ? .interrupted : .failed(error)
        }
        // A new init segment starts a new stream for the demuxer, as a discontinuity does.
        let mapChanged = segment.initializationMap.map { !Self.isSameMap($0, job.writtenMap) } ?? false
        let newStream = segment.discontinuity || job.startsNewStream
        if (newStream || mapChanged) && !job.isFirstSegment {
            control.markDiscontinuity(at: job.position, generation: job.generation)
        }
        if let map = segment.initializationMap, mapChanged || newStream {
            // Fragmented MP4: the init segment (its moov) goes in front of the first fragment
            // and again wherever the demuxer starts afresh.
            let initialization: Data
            do throws(PlayerError) {
                initialization = try ResourceFetcher.fetch(map.url, range: map.byteRange.map { $0.offset...($0.offset + $0.length - 1) },
                                                           configuration: configuration, wakeUp: wakeUp) {
                    [control, seenCommands] in
                    control.hasCommands(since: seenCommands)
                }
            } catch {
                return control.hasCommands(since: seenCommands) ? .interrupted : .failed(error)
            }
            guard initialization.withUnsafeBytes({ write($0) }) else { return .interrupted }
            self.job?.writtenMap = map
        }
        var filter = SegmentHeaderFilter()
        var plaintext: [UInt8] = []
        plaintext.reserveCapacity(Self.writeSize + 32)
        var failure: PlayerError?
        var received = 0
        // The playlist was read: the stream is under way, so a failing segment is a drop.
        var planner = ReconnectPlanner(policy: configuration.reconnect, canRenewURL: urlRefresher != nil)
        let base = segment.byteRange?.offset ?? 0
        let end = segment.byteRange.map { $0.offset + $0.length - 1 }

        // Body bytes: decrypt, strip headers, write; `false` stops the transfer.
        func take(_ bytes: UnsafeRawBufferPointer) -> Bool {
            do throws(PlayerError) {
                guard let decryptor else {
                    return filter.process(bytes) { write($0) }
                }
                plaintext.removeAll(keepingCapacity: true)
                try decryptor.update(bytes, into: &plaintext)
                return plaintext.withUnsafeBytes { clear in filter.process(clear) { write($0) } }
            } catch {
                failure = error
                return false
            }
        }

        // The segment arrived whole: flush the decryptor and the header filter.
        func complete() -> FetchResult {
            if let end, base + received < end + 1 {
                return .failed(.connectionLost(url: redacted, reason: "the segment ended \(end + 1 - base - received) bytes short"))
            }
            do throws(PlayerError) {
                if let decryptor {
                    plaintext.removeAll(keepingCapacity: true)
                    try decryptor.finish(into: &plaintext)
                    let written = plaintext.withUnsafeBytes { clear in filter.process(clear) { write($0) } }
                    if !written { return .interrupted }
                }
                if !filter.finish(emit: { write($0) }) { return .interrupted }
            } catch {
                return .failed(error)
            }
            return .done
        }

        var url = segment.url
        while true {
            let request = SegmentRequest(
                url: url, start: base + received, end: end, configuration: configuration, wakeUp: wakeUp,
                onBody: { take($0) }, shouldAbort: { [control, seenCommands] in control.hasCommands(since: seenCommands) })
            let ending = request.perform()
            received += request.delivered
            if let failure { return .failed(failure) }
            if control.hasCommands(since: seenCommands) { return .interrupted }
            let cause: TransferEnd.Failure, error: PlayerError
            switch ending {
            case .complete: return complete()
            case .command: return .interrupted
            case .failed(let failure, let failureError): (cause, error) = (failure, failureError)
            }
            // Offsets within the segment: a 416 ends it only when resuming inside it.
            let transferEnd = TransferEnd(failure: cause, error: error, offset: received - request.delivered,
                                          delivered: request.delivered, retryAfter: nil, inputEstablished: true)
            switch planner.plan(after: transferEnd) {
            case .finished:
                return complete()
            case .fail(let error):
                return .failed(error)
            case .renewURL:
                // Signed URLs that expired: the same segment from a freshly signed playlist, at
                // the byte it stopped.
                guard let fresh = renewedURL(of: segment) else { return .failed(error) }
                url = fresh
            case .retry(_, let delay):
                onReconnect()
                configuration.logger.info("resuming segment", metadata: [
                    "url": "\(redacted)", "offset": "\(received)", "retry": "\(planner.retries)", "cause": "\(error)",
                ])
                // On the clock; a command (start, stop) signals `wake` and ends the wait.
                let deadline = clock.now + .milliseconds(Int(delay * 1000))
                while clock.now < deadline {
                    if control.hasCommands(since: seenCommands) { return .interrupted }
                    clock.sleep(until: deadline, wakeUp: wakeUp)
                }
            }
        }
    }

    /// The URL of `segment` in the playlist read again from the refresher's fresh URL, or nil.
    private func renewedURL(of segment: HLSSegment) -> String? {
        guard let urlRefresher else { return nil }
        let fresh = urlRefresher.freshURL(replacing: playlistURL, timeout: configuration.urlRefreshTimeout,
                                          wakeUp: wakeUp) { [control, seenCommands] in
            control.hasCommands(since: seenCommands)
        }
        guard let fresh else { return nil }
        let previous = playlistURL
        playlistURL = fresh
        do {
            try reload()
        } catch {
            playlistURL = previous
            configuration.logger.warning("the refreshed playlist could not be read", metadata: ["error": "\(error)"])
            return nil
        }
        configuration.logger.info("segment URLs renewed", metadata: ["playlist": "\(redactedPlaylistURL)"])
        return playlist.segments.first { $0.sequence == segment.sequence }?.url
    }

    /// Copies audio bytes into the ring, waiting for space. `false` when a command came first.
    private func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard var job else { return false }
        defer { self.job = job }
        var rest = bytes
        if job.position < job.skipTo {
            let dropped = min(job.skipTo - job.position, rest.count)
            job.position += dropped
            rest = UnsafeRawBufferPointer(rebasing: rest[dropped...])
        }
        while !rest.isEmpty {
            let piece = UnsafeRawBufferPointer(rebasing: rest[..<min(rest.count, Self.writeSize)])
            if ring.write(piece) {
                job.position += piece.count
                rest = UnsafeRawBufferPointer(rebasing: rest[piece.count...])
                continue
            }
            if control.hasCommands(since: seenCommands) { return false }
            if !ring.announceProducerWaiting(for: piece.count) {
                wake.wait(timeout: 0.25)
            }
        }
        return true
    }

    /// A CDN object's URL without its query: a playlist signed again names the same init
    /// segment with a new signature, which is not a new map.
    private static func objectPath(_ url: String) -> Substring {
        url.prefix { $0 != "?" }
    }

    /// Whether `map` is the init segment `written` was, signed anew or not.
    private static func isSameMap(_ map: HLSInitializationMap, _ written: HLSInitializationMap?) -> Bool {
        guard let written else { return false }
        return objectPath(map.url) == objectPath(written.url) && map.byteRange == written.byteRange
    }

    /// The most bytes written to the ring at once: well below its smallest capacity.
    private static let writeSize = 16 * 1024

    /// The AES-128 key at `url`, fetched once per play. Never logged.
    private func fetchKey(_ url: String) throws(PlayerError) -> [UInt8] {
        if let key = keys[url] { return key }
        let data = try ResourceFetcher.fetch(url, configuration: configuration, wakeUp: wakeUp) { [self] in
            control.hasCommands(since: seenCommands)
        }
        guard data.count == 16 else {
            throw .decodingFailed(reason: "the AES-128 key at \(RedactedURL.describe(url)) has \(data.count) bytes, not 16")
        }
        let key = [UInt8](data)
        keys[url] = key
        return key
    }
}
