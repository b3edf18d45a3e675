import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import StreamPlay

/// Writes a track's cover to a file, for `mpris:artUrl`: MPRIS passes pictures by URL, and a
/// track's embedded cover has none.
///
/// Files are named by a hash of the picture's bytes, so the same cover is written once however
/// often it plays, in a directory only the user can read (`$XDG_CACHE_HOME/streamplay/artwork`,
/// or `~/.cache/streamplay/artwork`). Nothing is evicted: a cover is at most
/// ``Artwork/maximumSize``. Used on the service's thread only.
struct MPRISArtworkCache {
    let directory: String
    private var last: (artwork: Artwork, url: String)?

    /// - Parameter directory: where covers go; `nil` for the user's cache directory.
    init(directory: String? = nil) {
        self.directory = directory ?? Self.userCacheDirectory()
    }

    /// The `file://` URL of `artwork` written to the cache, or `nil` when there is none or it
    /// cannot be written (MPRIS then shows no cover; playback is not affected).
    mutating func url(for artwork: Artwork?) -> String? {
        guard let artwork else { return nil }
        if let last, last.artwork == artwork { return last.url }
        let path = "\(directory)/\(Self.name(of: artwork))"
        let files = FileManager.default
        if !files.fileExists(atPath: path) {
            do {
                try files.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                          attributes: [.posixPermissions: 0o700])
                let temporary = "\(path).\(getpid()).tmp"
                guard files.createFile(atPath: temporary, contents: Data(artwork.data),
                                       attributes: [.posixPermissions: 0o600]) else { return nil }
                try files.moveItem(atPath: temporary, toPath: path)
            } catch {
                return nil
            }
        }
        let url = URL(filePath: path).absoluteString
        last = (artwork, url)
        return url
    }

    /// A name made of the picture's FNV-1a hash and its type's extension.
    static func name(of artwork: Artwork) -> String {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in artwork.data {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex + "." + artwork.fileExtension
    }

    private static func userCacheDirectory() -> String {
        let environment = ProcessInfo.processInfo.environment
        let base = environment["XDG_CACHE_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? "\(environment["HOME"] ?? "/tmp")/.cache"
        return "\(base)/streamplay/artwork"
    }
}
