import Foundation
@testable import StreamPlay
@testable import StreamPlayMPRIS
import Testing

/// The covers MPRIS is given as files: written once per picture, in a directory of their own
/// that keeps a bounded number of them, the least recently used going first. A temporary
/// directory; no bus, no player.
@Suite("MPRIS cover files")
struct MPRISArtworkCacheTests {
    /// A distinct PNG-typed picture per `index`.
    static func cover(_ index: Int) throws -> Artwork {
        try #require(Artwork(data: [0x89, 0x50, 0x4E, 0x47] + withUnsafeBytes(of: index) { Array($0) }, mimeType: "image/png"))
    }

    static func temporaryDirectory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("artwork-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    static func files(in directory: String) throws -> Set<String> {
        Set(try FileManager.default.contentsOfDirectory(atPath: directory))
    }

    /// Sets the file's modification time, which the cache takes for its last use, to `seconds`
    /// after the epoch: long ago, and in a known order, on any file system.
    static func setLastUse(of artwork: Artwork, in directory: String, to seconds: Int) {
        var times = [timespec(tv_sec: seconds, tv_nsec: 0), timespec(tv_sec: seconds, tv_nsec: 0)]
        utimensat(AT_FDCWD, "\(directory)/\(MPRISArtworkCache.name(of: artwork))", &times, 0)
    }

    @Test("the directory keeps at most its capacity; the least recently used cover goes first, and a cover used again stays")
    func leastRecentlyUsedGoes() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // Someone else's file in the directory is neither counted nor removed.
        #expect(FileManager.default.createFile(atPath: "\(directory)/notes.txt", contents: Data("keep".utf8)))
        let covers = try (0..<5).map { try Self.cover($0) }
        let names = covers.map { MPRISArtworkCache.name(of: $0) }
        var cache = MPRISArtworkCache(directory: directory, capacity: 3)
        for index in 0..<3 {
            let url = cache.url(for: covers[index])
            #expect(url.map { FileManager.default.fileExists(atPath: URL(string: $0)!.path) } == true)
            Self.setLastUse(of: covers[index], in: directory, to: 1_000 + index)
        }
        // Cover 0 is used again (from another cache, as a second player would): now 1 is the oldest.
        var second = MPRISArtworkCache(directory: directory, capacity: 3)
        let again = second.url(for: covers[0])
        #expect(again != nil)
        let third = cache.url(for: covers[3])
        #expect(third != nil)
        #expect(try Self.files(in: directory) == [names[0], names[2], names[3], "notes.txt"])
        // Past the capacity again: 2 goes.
        let fourth = cache.url(for: covers[4])
        #expect(fourth != nil)
        #expect(try Self.files(in: directory) == [names[0], names[3], names[4], "notes.txt"])
    }

    @Test("a cover shown again after another process removed it is written again")
    func removedCoverIsWrittenAgain() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var cache = MPRISArtworkCache(directory: directory)
        let cover = try Self.cover(9)
        let first = cache.url(for: cover)
        let path = try #require(first.flatMap { URL(string: $0)?.path })
        try FileManager.default.removeItem(atPath: path)
        let again = cache.url(for: cover)
        #expect(again == first)
        #expect(FileManager.default.contents(atPath: path).map { [UInt8]($0) } == cover.data)
    }

    @Test("a cover is written once, readable by its owner only, and its URL names the file")
    func writtenOnce() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var cache = MPRISArtworkCache(directory: directory)
        let cover = try Self.cover(7)
        let written = cache.url(for: cover)
        let url = try #require(written)
        let path = try #require(URL(string: url)).path
        #expect(path == "\(directory)/\(MPRISArtworkCache.name(of: cover))")
        #expect(FileManager.default.contents(atPath: path).map { [UInt8]($0) } == cover.data)
        let permissions = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(permissions == 0o600)
        let reused = cache.url(for: cover)
        #expect(reused == url)
        #expect(try Self.files(in: directory).count == 1)
    }
}
