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
/// or `~/.cache/streamplay/artwork`). The directory keeps at most ``capacity`` covers (each at
/// most ``Artwork/maximumSize``): writing one more removes the least recently used, as told by
/// the files' modification times, which a cover's use renews. Used on the service's thread only.
struct MPRISArtworkCache {
    let directory: String
    /// The most covers the directory keeps.
    let capacity: Int
    private var last: (artwork: Artwork, path: String, url: String)?

    /// - Parameters:
    ///   - directory: where covers go; `nil` for the user's cache directory.
    ///   - capacity: the most covers kept there (at least 1).
    init(directory: String? = nil, capacity: Int = 256) {
        self.directory = directory ?? Self.userCacheDirectory()
        self.capacity = max(capacity, 1)
    }

    /// The `file://` URL of `artwork` written to the cache, or `nil` when there is none or it
    /// cannot be written (MPRIS then shows no cover; playback is not affected).
    mutating func url(for artwork: Artwork?) -> String? {
        guard let artwork else { return nil }
        // Shown again: still there (another process may have evicted it), and the most
        // recently used, for the eviction.
        if let last, last.artwork == artwork, utimensat(AT_FDCWD, last.path, nil, 0) == 0 { return last.url }
        let name = Self.name(of: artwork)
        let path = "\(directory)/\(name)"
        let files = FileManager.default
        if utimensat(AT_FDCWD, path, nil, 0) != 0 {
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
            evict(keeping: name)
        }
        let url = URL(filePath: path).absoluteString
        last = (artwork, path, url)
        return url
    }

    /// Removes the least recently used covers past ``capacity``, never `kept`. Only files named
    /// as this cache names them are counted or removed.
    private func evict(keeping kept: String) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        var covers: [(name: String, used: timespec)] = []
        for name in names where name != kept && Self.isCoverName(name) {
            var status = stat()
            guard stat("\(directory)/\(name)", &status) == 0 else { continue }
            covers.append((name, status.st_mtim))
        }
        let excess = covers.count + 1 - capacity
        guard excess > 0 else { return }
        covers.sort { ($0.used.tv_sec, $0.used.tv_nsec) < ($1.used.tv_sec, $1.used.tv_nsec) }
        for cover in covers.prefix(excess) { unlink("\(directory)/\(cover.name)") }
    }

    /// Whether `name` is one this cache gives: 16 hex digits, a dot, an extension.
    static func isCoverName(_ name: String) -> Bool {
        let parts = name.split(separator: ".")
        return parts.count == 2 && parts[0].count == 16 && parts[0].allSatisfy(\.isHexDigit) && !parts[1].isEmpty
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
