import Synchronization
import Testing
@testable import StreamPlay

/// A stand-in for a play session: a name and the format its first audio would have.
final class FakeSession: QueueSession, CustomStringConvertible, @unchecked Sendable {
    let name: String
    let id: Int
    let preload: Bool
    var readyFormat: AudioFormat?

    init(_ request: QueueStateMachine<FakeSession>.SessionRequest) {
        name = request.item.location.description
        id = request.id
        preload = request.preload
    }

    var description: String { name }
}

/// Drives a queue machine the way the player does, keeping the sessions it made.
struct QueueDriver {
    typealias Queue = QueueStateMachine<FakeSession>
    var queue = Queue()
    private(set) var made: [FakeSession] = []

    static let format = AudioFormat(sampleRate: 44100, channels: 2)
    static func entries(_ names: String...) -> [Queue.Entry] {
        names.map { Queue.Entry(location: .file("/music/\($0).mp3")) }
    }

    /// Runs `decide` and carries out a switch's second step where the player would: after the
    /// actions before it.
    mutating func callAsFunction(_ decide: (inout Queue, Queue.SessionFactory) -> [Queue.Action]) -> [String] {
        var made: [FakeSession] = []
        let factory: Queue.SessionFactory = { request in
            let session = FakeSession(request)
            made.append(session)
            return session
        }
        var pending = decide(&queue, factory)
        var described: [String] = []
        while !pending.isEmpty {
            let action = pending.removeFirst()
            if case .completeSwitch(let index, let startTime) = action {
                pending = queue.completeSwitch(to: index, startTime: startTime, make: factory) + pending
                continue
            }
            described.append(Self.describe(action))
        }
        self.made += made
        return described
    }

    /// The session made for `name` last.
    func session(_ name: String) -> FakeSession? {
        made.last { $0.name == "/music/\(name).mp3" }
    }

    static func describe(_ action: Queue.Action) -> String {
        func short(_ session: FakeSession) -> String {
            String(session.name.dropFirst("/music/".count).dropLast(".mp3".count))
        }
        switch action {
        case .stop(let session): return "stop \(short(session))"
        case .beginNewTrack: return "new track"
        case .applyVolume: return "volume"
        case .start(let session): return "start \(short(session))\(session.preload ? " (preload)" : "")"
        case .activate(let session): return "activate \(short(session))"
        case .closeSink: return "close sink"
        case .send(.stateChanged(let state)): return "state \(state)"
        case .send(.currentItemChanged(let index, _)): return "item \(index)"
        case .send(.itemFailed(let item, _)): return "failed \(item.id)"
        case .send(.formatKnown): return "format"
        case .send(.durationKnown(let seconds)): return "duration \(seconds)"
        case .send(let event): return "event \(event)"
        case .completeSwitch: return "complete switch"
        }
    }
}

@Suite("Queue state machine")
struct QueueStateMachineTests {
    typealias D = QueueDriver

    @Test("playing a queue starts its first item; an empty queue stops")
    func play() {
        var driver = D()
        #expect(driver { $0.play(D.entries("a", "b"), make: $1) }
            == ["volume", "item 0", "state connecting", "start a"])
        #expect(driver.queue.currentIndex == 0)
        #expect(driver { $0.play([], make: $1) } == ["stop a", "close sink", "state idle"])
        #expect(driver.queue.current == nil)
    }

    @Test("near the end the next item is preloaded, and at the end it takes over without a drain")
    func gaplessHandOff() throws {
        var driver = D()
        _ = driver { $0.play(D.entries("a", "b"), make: $1) }
        let a = try #require(driver.session("a"))
        _ = driver { $0.receive(.state(.playing), from: a.id, make: $1) }
        #expect(driver { $0.receive(.nearingEnd, from: a.id, make: $1) } == ["start b (preload)"])
        let b = try #require(driver.session("b"))
        _ = driver { $0.receive(.format(D.format), from: b.id, make: $1) }
        _ = driver { $0.receive(.duration(6), from: b.id, make: $1) }
        // Not decoded yet: no hand-off, the current track drains.
        #expect(driver.queue.handOff(from: a.id, format: D.format).0 == false)
        b.readyFormat = D.format
        let (handed, actions) = driver.queue.handOff(from: a.id, format: D.format)
        #expect(handed)
        // Announced when heard: until then the listener is told a plays.
        #expect(actions.map(D.describe) == ["activate b"])
        #expect(driver.queue.currentIndex == 1)
        #expect(driver.queue.audible.index == 0)
        #expect(driver.queue.audible.duration == nil)
        #expect(driver.queue.unheardHandOff?.heard === a)
        #expect(driver { $0.receive(.firstAudioHeard, from: b.id, make: $1) } == ["item 1", "format", "duration 6.0"])
        #expect(driver.queue.audible.index == 1)
        #expect(driver.queue.audible.duration == 6)
        #expect(driver.queue.unheardHandOff == nil)
        // Heard once: a second report changes nothing.
        #expect(driver { $0.receive(.firstAudioHeard, from: b.id, make: $1) } == [])
        // The old session's last reports are stale now.
        #expect(driver { $0.receive(.state(.ended), from: a.id, make: $1) } == [])
        // The next nearing end stops the old session from another thread.
        #expect(driver { $0.receive(.nearingEnd, from: b.id, make: $1) } == ["stop a"])
    }

    /// Plays a, b and c, and hands a over to b, not heard yet.
    static func handedOffUnheard() throws -> (D, a: FakeSession, b: FakeSession) {
        var driver = D()
        _ = driver { $0.play(D.entries("a", "b", "c"), make: $1) }
        let a = try #require(driver.session("a"))
        _ = driver { $0.receive(.state(.playing), from: a.id, make: $1) }
        _ = driver { $0.receive(.nearingEnd, from: a.id, make: $1) }
        let b = try #require(driver.session("b"))
        b.readyFormat = D.format
        #expect(driver.queue.handOff(from: a.id, format: D.format).0)
        return (driver, a, b)
    }

    @Test("what the next item reports before it is heard comes after its announcement; its end announces it")
    func reportsWhileUnheard() throws {
        var (driver, _, b) = try Self.handedOffUnheard()
        #expect(driver { $0.receive(.duration(6), from: b.id, make: $1) } == [])
        #expect(driver { $0.receive(.nearingEnd, from: b.id, make: $1) } == ["stop a", "start c (preload)"])
        #expect(driver.queue.audible.index == 0)
        #expect(driver { $0.receive(.state(.ended), from: b.id, make: $1) }
            == ["item 1", "duration 6.0", "item 2", "state connecting", "activate c"])
    }

    @Test("a chain of short items is announced in order, each when its successor is heard at the latest")
    func chainedUnheard() throws {
        var (driver, a, b) = try Self.handedOffUnheard()
        _ = driver { $0.receive(.nearingEnd, from: b.id, make: $1) }
        let c = try #require(driver.session("c"))
        c.readyFormat = D.format
        #expect(driver.queue.handOff(from: b.id, format: D.format).1.map(D.describe) == ["activate c"])
        #expect(driver.queue.audible.index == 0)
        #expect(driver.queue.unheardHandOff?.heard === a)
        #expect(driver { $0.receive(.firstAudioHeard, from: c.id, make: $1) } == ["item 1", "item 2"])
        #expect(driver.queue.audible.index == 2)
    }

    @Test("next, a seek and stop while a hand-off is unheard act on the item heard; its announcement is dropped")
    func commandsWhileUnheard() throws {
        var (driver, _, _) = try Self.handedOffUnheard()
        // Next from a (heard) is b, from its start: b's session is replaced.
        #expect(driver { $0.step(by: 1, make: $1)! } == ["stop b", "stop a", "new track", "volume", "item 1", "state connecting", "start b"])
        #expect(driver.queue.audible.index == 1)
        let restarted = try #require(driver.session("b"))
        #expect(driver { $0.receive(.firstAudioHeard, from: restarted.id, make: $1) } == [])

        (driver, _, _) = try Self.handedOffUnheard()
        #expect(driver { $0.seekAudible(to: 3, make: $1)! } == ["stop b", "stop a", "new track", "volume", "item 0", "state connecting", "start a"])
        #expect(driver.queue.current?.name == "/music/a.mp3")
        #expect(driver.queue.seekAudible(to: 3) { FakeSession($0) } == nil)

        var b: FakeSession
        (driver, _, b) = try Self.handedOffUnheard()
        #expect(driver { queue, _ in queue.stop() } == ["stop b", "stop a", "close sink", "state idle"])
        #expect(driver { $0.receive(.firstAudioHeard, from: b.id, make: $1) } == [])
    }

    @Test("an insert while a hand-off is unheard announces it first, with the index it had")
    func insertWhileUnheard() throws {
        var (driver, _, _) = try Self.handedOffUnheard()
        var actions: [D.Queue.Action] = []
        (_, actions) = driver.queue.insert(D.Queue.Entry(location: .file("/music/z.mp3")), at: 0)
        #expect(actions.map(D.describe) == ["item 1"])
        #expect(driver.queue.audible.index == 2)
    }

    @Test("a hand-off in another format is refused: the track drains and the next one opens the sink anew")
    func handOffFormatChange() throws {
        var driver = D()
        _ = driver { $0.play(D.entries("a", "b"), make: $1) }
        let a = try #require(driver.session("a"))
        _ = driver { $0.receive(.nearingEnd, from: a.id, make: $1) }
        let b = try #require(driver.session("b"))
        b.readyFormat = AudioFormat(sampleRate: 48000, channels: 2)
        #expect(driver.queue.handOff(from: a.id, format: D.format).0 == false)
        _ = driver { $0.receive(.state(.playing), from: b.id, make: $1) }
        #expect(driver { $0.receive(.state(.ended), from: a.id, make: $1) }
            == ["item 1", "state playing", "activate b"])
    }

    @Test("a failing item is skipped with itemFailed; the last one's failure ends the queue")
    func skipOnFailure() throws {
        var driver = D()
        _ = driver { $0.play(D.entries("a", "b"), make: $1) }
        let a = try #require(driver.session("a"))
        let error = PlayerError.httpStatus(code: 404, url: "a")
        #expect(driver { $0.receive(.state(.failed(error)), from: a.id, make: $1) }
            == ["failed 1", "item 1", "start b"])
        let b = try #require(driver.session("b"))
        #expect(driver { $0.receive(.state(.failed(error)), from: b.id, make: $1) } == ["state failed: \(error)"])
        #expect(driver.queue.state == .failed(error))
    }

    @Test("an item that failed while preloaded is skipped when its turn comes")
    func preloadedFailure() throws {
        var driver = D()
        _ = driver { $0.play(D.entries("a", "b", "c"), make: $1) }
        let a = try #require(driver.session("a"))
        _ = driver { $0.receive(.nearingEnd, from: a.id, make: $1) }
        let b = try #require(driver.session("b"))
        let error = PlayerError.notAudio(url: "b", reason: "test")
        #expect(driver { $0.receive(.state(.failed(error)), from: b.id, make: $1) } == [], "kept, not announced")
        #expect(driver { $0.receive(.state(.ended), from: a.id, make: $1) }
            == ["item 1", "failed 2", "item 2", "start c"])
        #expect(driver.queue.currentIndex == 2)
    }

    @Test("next, previous and play(itemAt:) stop what plays and begin a new track")
    func commands() throws {
        var driver = D()
        _ = driver { $0.play(D.entries("a", "b", "c"), make: $1) }
        #expect(driver { $0.step(by: 1, make: $1) ?? [] } == ["stop a", "new track", "volume", "item 1", "start b"])
        #expect(driver { $0.step(by: 5, make: $1) ?? [.closeSink] } == ["close sink"], "nil: no such item")
        #expect(driver { $0.playItem(at: 0, make: $1) } == ["stop b", "new track", "volume", "item 0", "start a"])
        #expect(driver { $0.playItem(at: 9, make: $1) } == [])
    }

    @Test("a preload the queue no longer wants is stopped when the queue changes")
    func stalePreload() throws {
        var driver = D()
        _ = driver { $0.play(D.entries("a", "b"), make: $1) }
        let a = try #require(driver.session("a"))
        _ = driver { $0.receive(.nearingEnd, from: a.id, make: $1) }
        let (inserted, actions) = driver.queue.insert(D.entries("x")[0], at: 1)
        #expect(actions.map(D.describe) == ["stop b"])
        #expect(driver.queue.items.map(\.id) == [1, inserted.id, 2])
        let (_, appended) = driver.queue.enqueue(D.entries("y")[0])
        #expect(appended.isEmpty, "the end of the queue changes nothing about the next item")
    }

    @Test("removing the playing item plays the one after it, or stops at the end")
    func removeCurrent() throws {
        var driver = D()
        _ = driver { $0.play(D.entries("a", "b"), make: $1) }
        #expect(driver { $0.remove(at: 0, make: $1) } == ["stop a", "new track", "volume", "item 0", "start b"])
        #expect(driver { $0.remove(at: 0, make: $1) } == ["stop b", "close sink", "state idle"])
        #expect(driver.queue.items.isEmpty)
        #expect(driver { $0.remove(at: 3, make: $1) } == [])
    }

    @Test("removing an item before the current one keeps the current index on the same item")
    func removeBefore() throws {
        var driver = D()
        _ = driver { $0.play(D.entries("a", "b", "c"), make: $1) }
        _ = driver { $0.playItem(at: 2, make: $1) }
        _ = driver { $0.remove(at: 0, make: $1) }
        #expect(driver.queue.currentIndex == 1)
        #expect(driver.queue.currentItem?.location == .file("/music/c.mp3"))
    }

    @Test("a seek after the end plays the item again from there; a stale session asks in vain")
    func replay() throws {
        var driver = D()
        _ = driver { $0.play(D.entries("a"), make: $1) }
        let a = try #require(driver.session("a"))
        _ = driver { $0.receive(.state(.ended), from: a.id, make: $1) }
        #expect(driver.queue.state == .ended)
        #expect(driver { $0.replay(a, from: 3, make: $1) } == ["stop a", "new track", "volume", "item 0", "state connecting", "start a"])
        #expect(driver { $0.replay(a, from: 3, make: $1) } == [], "the first session is no longer current")
    }

    @Test("stop and clear release the sink; a bad location fails alone, quietly ending what played")
    func stopAndFail() throws {
        var driver = D()
        #expect(driver { queue, _ in queue.stop() } == ["close sink"], "nothing played: no state")
        _ = driver { $0.play(D.entries("a"), make: $1) }
        #expect(driver { queue, _ in queue.clear() } == ["stop a", "close sink", "state idle"])
        _ = driver { $0.play(D.entries("b"), make: $1) }
        let error = PlayerError.invalidLocation("::")
        #expect(driver { queue, _ in queue.fail(error) } == ["stop b", "close sink", "state failed: \(error)"])
        #expect(driver.queue.items.isEmpty)
    }

    @Test("reports from a replaced session change nothing")
    func staleReports() throws {
        var driver = D()
        _ = driver { $0.play(D.entries("a", "b"), make: $1) }
        let a = try #require(driver.session("a"))
        _ = driver { $0.step(by: 1, make: $1) ?? [] }
        #expect(driver { $0.receive(.format(D.format), from: a.id, make: $1) } == [])
        #expect(driver { $0.receive(.state(.failed(.emptyStream(url: "a"))), from: a.id, make: $1) } == [])
        #expect(driver.queue.format == nil)
        #expect(driver.queue.state == .connecting)
    }
}
