import FoundationEssentials
import Testing
@testable import StreamPlay

#if canImport(Glibc)
import Glibc
#endif

/// What a file location stands for, resolved with no session, thread or server: the playlists
/// are files in a directory of the test's own.
@Suite("Playback source resolver (files)")
struct PlaybackSourceResolverTests {
    /// A fresh directory, removed by the caller.
    static func directory() -> String {
        var template = Array("/tmp/sp-resolver-XXXXXX".utf8CString)
        return template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
    }

    static func write(_ text: String, to path: String) {
        let file = fopen(path, "wb")!
        defer { fclose(file) }
        _ = text.utf8CString.withUnsafeBufferPointer { fwrite($0.baseAddress, 1, $0.count - 1, file) }
    }

    static func resolve(_ path: String) throws(PlayerError) -> [MediaLocation] {
        let sources = try PlaybackSourceResolver(
            location: .file(path), configuration: PlayerConfiguration(output: .null), urlRefresher: nil,
            wakeUp: ThreadSignal(), isStopped: { false }).resolve()
        return sources.map { source in
            guard case .media(let location) = source else { Issue.record("HLS from a file"); return .file("") }
            return location
        }
    }

    static func error(resolving path: String) -> PlayerError? {
        do throws(PlayerError) {
            _ = try resolve(path)
            return nil
        } catch {
            return error
        }
    }

    @Test("a location that is not a playlist stands for itself, unread")
    func notAPlaylist() throws {
        #expect(try Self.resolve("/nonexistent/song.mp3") == [.file("/nonexistent/song.mp3")])
    }

    @Test("an M3U's entries, comments skipped, relative ones against its folder, URLs as they are")
    func m3u() throws {
        let folder = Self.directory()
        defer { _ = system("rm -rf '\(folder)'") }
        Self.write("#EXTM3U\n#EXTINF:3,One\none.mp3\r\n\n  sub/two.flac  \nhttp://127.0.0.1:1/three.ogg\n", to: "\(folder)/list.m3u")
        #expect(try Self.resolve("\(folder)/list.m3u")
                == [.file("\(folder)/one.mp3"), .file("\(folder)/sub/two.flac"), .remote("http://127.0.0.1:1/three.ogg")])
    }

    @Test("a PLS's entries in the order of their numbers, not of their lines")
    func pls() throws {
        let folder = Self.directory()
        defer { _ = system("rm -rf '\(folder)'") }
        Self.write("[playlist]\nFile2=b.mp3\nTitle2=B\nFile1=a.mp3\nNumberOfEntries=2\n", to: "\(folder)/radio.pls")
        #expect(try Self.resolve("\(folder)/radio.pls") == [.file("\(folder)/a.mp3"), .file("\(folder)/b.mp3")])
    }

    @Test("refused by name: a missing playlist, one with no entry, one too large, HLS from a file")
    func refusals() {
        let folder = Self.directory()
        defer { _ = system("rm -rf '\(folder)'") }
        #expect(Self.error(resolving: "\(folder)/missing.m3u") == .fileNotFound(path: "\(folder)/missing.m3u"))

        Self.write("#EXTM3U\n# nothing but comments\n", to: "\(folder)/empty.m3u")
        let empty = Self.error(resolving: "\(folder)/empty.m3u")
        #expect(empty?.code == .notAudio && "\(empty!)".contains("no playable entry"), "\(String(describing: empty))")

        Self.write(String(repeating: "x.mp3\n", count: ResourceFetcher.limit / 6 + 1), to: "\(folder)/huge.m3u")
        let huge = Self.error(resolving: "\(folder)/huge.m3u")
        #expect(huge?.code == .notAudio && "\(huge!)".contains("larger than"), "\(String(describing: huge))")

        Self.write("#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\nseg0.ts\n#EXT-X-ENDLIST\n", to: "\(folder)/live.m3u8")
        let hls = Self.error(resolving: "\(folder)/live.m3u8")
        #expect(hls?.code == .invalidPlaylist && "\(hls!)".contains("http(s) URLs"), "\(String(describing: hls))")
    }
}
