// queue-player: plays its arguments as one gapless queue, prints the player's events, and
// publishes itself to the desktop's media controls (MPRIS) while it plays.
//
//   queue-player [--wav FILE] URL-OR-PATH...
//
// With --wav the audio goes to a WAV file instead of the sound server. The exit status is 0
// when the queue played to its end (a track that fails is reported and skipped), 1 when the
// play failed, 64 for bad arguments.
import StreamPlay
import StreamPlayMPRIS

#if canImport(Glibc)
import Glibc
#endif

/// Messages for people go to standard error, events to standard output.
func printError(_ text: String) {
    let line = "queue-player: \(text)\n"
    _ = line.utf8CString.withUnsafeBytes { write(2, $0.baseAddress, $0.count - 1) }
}

// 1. The arguments: an optional WAV file, then what to play.
var arguments = Array(CommandLine.arguments.dropFirst())
var configuration = PlayerConfiguration()
if arguments.first == "--wav", arguments.count >= 2 {
    configuration.output = .wavFile(path: arguments[1])
    arguments.removeFirst(2)
}
guard !arguments.isEmpty else {
    printError("usage: queue-player [--wav FILE] URL-OR-PATH...")
    exit(64)
}
let locations: [MediaLocation]
do {
    locations = try arguments.map { try MediaLocation(parsing: $0) }
} catch {
    printError("\(error)")
    exit(64)
}

// 2. A player, and the events it reports, printed as they come.
let player = Player(configuration: configuration)
let printer = Task {
    for await event in player.events {
        switch event {
        case .currentItemChanged(let index, let item):
            print("track \(index + 1) of \(locations.count): \(item.location)")
        case .metadata(let metadata):
            print("  \([metadata.artist, metadata.title].compactMap { $0 }.joined(separator: " – "))")
        case .durationKnown(let seconds):
            print("  \(Int(seconds.rounded())) s")
        case .itemFailed(let item, let error):
            print("  skipped \(item.location): \(error)")
        case .stateChanged(let state):
            print("  \(state)")
        default:
            break
        }
    }
}

// 3. MPRIS: media keys, playerctl and the desktop's controls reach the player. Without a
// session bus the player plays on without it.
let mpris: MPRISService?
do {
    mpris = try MPRISService(player: player, name: "queueplayer", identity: "Queue Player")
    print("on the session bus as \(mpris!.busName)")
} catch {
    print("no MPRIS: \(error)")
    mpris = nil
}

// 4. The queue plays gaplessly; wait for its end.
player.play(locations)
let final = await player.waitUntilFinished()
mpris?.stop()
player.stop()
printer.cancel()
if case .failed(let error) = final {
    printError("\(error)")
    exit(1)
}
exit(0)
