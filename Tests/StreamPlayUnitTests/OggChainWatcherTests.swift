import Testing
@testable import StreamPlay

/// ``OggChainWatcher/endsMidPage``: where the bytes read end, told from the pages alone.
@Suite("Ogg pages: where the input ends")
struct OggChainWatcherTests {
    /// One Ogg page (no CRC: the watcher does not check it) carrying `body` as one packet.
    static func page(_ body: [UInt8], flags: UInt8 = 0) -> [UInt8] {
        Array("OggS".utf8) + [0, flags] + [UInt8](repeating: 0, count: 20) + [1, UInt8(body.count)] + body
    }

    static func watcher(reading bytes: [UInt8]) -> OggChainWatcher {
        let watcher = OggChainWatcher()
        bytes.withUnsafeBytes { watcher.observe($0, at: 0) }
        return watcher
    }

    @Test("whole pages, or whole pages then bytes that are no page (an ID3v1 tag), end cleanly")
    func cleanEnds() {
        let pages = Self.page([1, 2, 3], flags: 2) + Self.page([4, 5, 6], flags: 4)
        #expect(!Self.watcher(reading: pages).endsMidPage)
        let id3v1 = Array("TAG".utf8) + [UInt8](repeating: 0x20, count: 124) + [0xFF]
        #expect(!Self.watcher(reading: pages + id3v1).endsMidPage)
        #expect(!Self.watcher(reading: pages + Array("APETAGEX".utf8)).endsMidPage)
        // A tag whose last bytes happen to begin as a page does: still no page cut short.
        // (The search stops 26 bytes before the end, fewer than a page header: right at "OggS".)
        let unlucky = Array("TAG".utf8) + [UInt8](repeating: 0x20, count: 99) + Array("OggS".utf8) + [UInt8](repeating: 0x20, count: 22)
        #expect(!Self.watcher(reading: pages + unlucky).endsMidPage)
    }

    @Test("a page cut in its body, in its header, or after its first bytes ends mid-page")
    func cutPages() {
        let first = Self.page([1, 2, 3], flags: 2), second = Self.page([UInt8](repeating: 7, count: 40))
        for cut in [1, 2, 3, 4, 20, 27, 28, second.count - 1] {
            #expect(Self.watcher(reading: first + second.prefix(cut)).endsMidPage, "cut after \(cut) bytes")
        }
    }
}
