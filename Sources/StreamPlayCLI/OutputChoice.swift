import ArgumentParser
import StreamPlay

/// The `--output` option: pulse, null, or wav:PATH.
enum OutputChoice: ExpressibleByArgument, Equatable {
    case pulse
    case null
    case wav(String)

    init?(argument: String) {
        switch argument {
        case "pulse": self = .pulse
        case "null": self = .null
        default:
            guard argument.hasPrefix("wav:"), argument.count > 4 else { return nil }
            self = .wav(String(argument.dropFirst(4)))
        }
    }

    var audioOutput: AudioOutput {
        switch self {
        case .pulse: .pulseAudio()
        case .null: .null
        case .wav(let path): .wavFile(path: path)
        }
    }
}
