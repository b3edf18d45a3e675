import ArgumentParser
import StreamPlay

/// The `--replaygain` option: off, track or album.
enum ReplayGainChoice: String, ExpressibleByArgument, CaseIterable {
    case off
    case track
    case album

    var mode: ReplayGainMode {
        switch self {
        case .off: .off
        case .track: .track
        case .album: .album
        }
    }
}
