import FoundationEssentials
import StreamPlay
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Reads keys on a thread of its own (a blocking read must not sit on Swift's task pool) and
/// turns them into player commands: space pause/resume, ← → seek 10 s, > < next and previous item,
/// 9 0 (or - +) volume down and up, m mute, q quit.
final class KeyReader: Sendable {
    private let player: Player
    private let quit = Atomic<Bool>(false)
    private let running = Atomic<Bool>(false)
    /// The volume before m muted, in thousandths (0: not muted).
    private let unmutedVolume = Atomic<Int>(0)
    private let seekStep = 10.0
    /// A volume key's step: 5 percentage points, as mpv's 9 and 0 (2 there) move in steps.
    private let volumeStep = 0.05

    init(player: Player) {
        self.player = player
    }

    /// `true` once q was pressed.
    var quitRequested: Bool { quit.load(ordering: .relaxed) }

    func start() {
        Terminal.enableKeyMode()
        running.store(true, ordering: .relaxed)
        EngineThread.detached(name: "sp-keys") { [self] in readLoop() }
    }

    func stop() {
        running.store(false, ordering: .relaxed)
        Terminal.restore()
    }

    private func readLoop() {
        var pending: [UInt8] = []
        var byte: UInt8 = 0
        while running.load(ordering: .relaxed) {
            // Moved to the background (Ctrl-Z, then bg): the terminal's keys are the shell's
            // now, and a read fails at once (EIO, SIGTTIN being ignored: see SignalHandling)
            // rather than wait. Look again in a while.
            guard Terminal.isForeground else {
                usleep(200_000)
                continue
            }
            // A key read as the reader stops is dropped: the play may be over.
            guard read(STDIN_FILENO, &byte, 1) == 1, running.load(ordering: .relaxed) else { continue }
            pending.append(byte)
            switch pending {
            case [0x20]:
                player.state == .paused ? player.resume() : player.pause()
            case [0x71], [0x51]: // q, Q
                quit.store(true, ordering: .relaxed)
                player.stop()
            case [0x3E]: // >
                player.next()
            case [0x3C]: // <
                player.previous()
            case [0x1B, 0x5B, 0x43]: // →
                player.seek(to: (player.position ?? 0) + seekStep)
            case [0x1B, 0x5B, 0x44]: // ←
                player.seek(to: max((player.position ?? 0) - seekStep, 0))
            case [0x39], [0x2D]: // 9, -
                changeVolume(by: -volumeStep)
            case [0x30], [0x2B], [0x3D]: // 0, +, = (+ without shift)
                changeVolume(by: volumeStep)
            case [0x6D], [0x4D]: // m, M
                toggleMute()
            case [0x1B], [0x1B, 0x5B]:
                continue // the start of an escape sequence
            default:
                break
            }
            pending.removeAll()
        }
    }

    /// Volume keys work from the volume heard: from a muted player they start at silence.
    private func changeVolume(by step: Double) {
        unmutedVolume.store(0, ordering: .relaxed)
        // Steps land on whole percents, however the volume was set.
        player.volume = max(((player.volume + step) * 100).rounded() / 100, 0)
    }

    private func toggleMute() {
        let saved = unmutedVolume.exchange(0, ordering: .relaxed)
        if saved > 0 {
            player.volume = Double(saved) / 1000
        } else if player.volume > 0 {
            unmutedVolume.store(Int((player.volume * 1000).rounded()), ordering: .relaxed)
            player.volume = 0
        }
    }
}
