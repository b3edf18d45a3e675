@testable import StreamPlay
@testable import StreamPlayMPRIS
import Testing

/// The mapping from a player's state to MPRIS property values: no bus, no player.
@Suite struct MPRISSnapshotTests {
    private func item(_ id: Int, _ text: String) throws -> QueueItem {
        QueueItem(id: id, location: try MediaLocation(parsing: text))
    }

    @Test func playbackStatusFollowsTheState() {
        #expect(MPRISSnapshot.playbackStatus(.playing) == "Playing")
        #expect(MPRISSnapshot.playbackStatus(.buffering) == "Playing")
        #expect(MPRISSnapshot.playbackStatus(.connecting) == "Playing")
        #expect(MPRISSnapshot.playbackStatus(.paused) == "Paused")
        #expect(MPRISSnapshot.playbackStatus(.idle) == "Stopped")
        #expect(MPRISSnapshot.playbackStatus(.ended) == "Stopped")
        #expect(MPRISSnapshot.playbackStatus(.failed(.invalidLocation("x"))) == "Stopped")
    }

    @Test func tagsLengthAndURLMakeTheMetadata() throws {
        let view = MPRISPlayerView(
            state: .playing, currentIndex: 0, queueCount: 1,
            item: try item(7, "http://127.0.0.1:8080/dir/track.mp3?token=secret"),
            metadata: StreamMetadata(title: "Song", artist: "Band", album: "Record"), duration: 30.5, volume: 0.25)
        let snapshot = MPRISSnapshot(view)
        #expect(snapshot.trackID == "/org/streamplay/track/7")
        #expect(snapshot.length == 30_500_000)
        #expect(snapshot.title == "Song")
        #expect(snapshot.artist == "Band")
        #expect(snapshot.album == "Record")
        #expect(snapshot.url == "http://127.0.0.1:8080/dir/track.mp3")
        #expect(!(snapshot.url ?? "").contains("secret"))
        #expect(snapshot.volume == 0.25)
        #expect(snapshot.canSeek)
    }

    @Test func withoutTagsTheFileNameIsTheTitle() throws {
        let snapshot = MPRISSnapshot(MPRISPlayerView(state: .playing, currentIndex: 0, queueCount: 1,
                                                     item: try item(1, "/music/My%20Song.mp3")))
        #expect(snapshot.title == "My Song.mp3")
        #expect(snapshot.url == "file:///music/My%2520Song.mp3")
        #expect(snapshot.artist == nil)
        #expect(snapshot.length == nil)
        #expect(!snapshot.canSeek, "a stream of unknown length is live: no seeking")
    }

    @Test func percentEscapesDecodeAsUTF8() {
        #expect(MPRISSnapshot.percentDecoded("Caf%C3%A9%20Song.mp3") == "Café Song.mp3")
        #expect(MPRISSnapshot.percentDecoded("100%") == "100%")
        #expect(MPRISSnapshot.percentDecoded("a%zzb") == "a%zzb")
    }

    @Test func noItemIsNoTrack() {
        let snapshot = MPRISSnapshot(MPRISPlayerView(state: .idle))
        #expect(snapshot.trackID == MPRISSnapshot.noTrack)
        #expect(snapshot.playbackStatus == "Stopped")
        #expect(!snapshot.canPlay && !snapshot.canPause && !snapshot.canSeek && !snapshot.canGoNext)
    }

    @Test func queuePositionGivesNextAndPrevious() throws {
        let first = MPRISSnapshot(MPRISPlayerView(state: .playing, currentIndex: 0, queueCount: 3, item: try item(1, "/a.mp3")))
        #expect(first.canGoNext && !first.canGoPrevious)
        let middle = MPRISSnapshot(MPRISPlayerView(state: .playing, currentIndex: 1, queueCount: 3, item: try item(2, "/b.mp3")))
        #expect(middle.canGoNext && middle.canGoPrevious)
        let last = MPRISSnapshot(MPRISPlayerView(state: .playing, currentIndex: 2, queueCount: 3, item: try item(3, "/c.mp3")))
        #expect(!last.canGoNext && last.canGoPrevious)
    }

    @Test func changesNameWhatDiffers() throws {
        let view = MPRISPlayerView(state: .playing, currentIndex: 0, queueCount: 2, item: try item(1, "/a.mp3"), duration: 10)
        let before = MPRISSnapshot(view)
        #expect(before.changes(since: nil) == .all)
        #expect(before.changes(since: before).isEmpty)
        var paused = view
        paused.state = .paused
        #expect(MPRISSnapshot(paused).changes(since: before) == .playbackStatus)
        var louder = view
        louder.volume = 0.5
        #expect(MPRISSnapshot(louder).changes(since: before) == .volume)
        var tagged = view
        tagged.metadata = StreamMetadata(title: "T")
        #expect(MPRISSnapshot(tagged).changes(since: before) == .metadata)
        var next = view
        next.currentIndex = 1
        next.item = try item(2, "/b.mp3")
        #expect(MPRISSnapshot(next).changes(since: before) == [.metadata, .canGoNext, .canGoPrevious])
        var numbered = view
        numbered.metadata = StreamMetadata(title: nil, trackNumber: 4)
        #expect(MPRISSnapshot(numbered).trackNumber == 4)
        #expect(MPRISSnapshot(numbered).changes(since: before) == .metadata)
        #expect(MPRISSnapshot(view, artURL: "file:///cover.png").changes(since: before) == .metadata)
    }

    @Test func theQueueIsTheTrackList() throws {
        let queue = [try item(1, "/music/a%20b.mp3"), try item(2, "/music/c.flac")]
        let view = MPRISPlayerView(state: .playing, currentIndex: 0, queueCount: 2, queue: queue, item: queue[0])
        let snapshot = MPRISSnapshot(view)
        #expect(snapshot.tracks.map(\.id) == ["/org/streamplay/track/1", "/org/streamplay/track/2"])
        #expect(snapshot.tracks.map(\.title) == ["a b.mp3", "c.flac"])
        #expect(snapshot.tracks[1].url == "file:///music/c.flac")
        var shorter = view
        shorter.queue = [queue[0]]
        shorter.queueCount = 1
        #expect(MPRISSnapshot(shorter).changes(since: snapshot).contains(.trackList))
        #expect(!MPRISSnapshot(view).changes(since: snapshot).contains(.trackList))
    }

    @Test func coverFilesAreNamedByContentAndType() throws {
        let png = try #require(Artwork(data: [0x89, 0x50, 0x4E, 0x47, 1, 2], mimeType: "image/png"))
        let other = try #require(Artwork(data: [0x89, 0x50, 0x4E, 0x47, 1, 3], mimeType: "image/png"))
        let name = MPRISArtworkCache.name(of: png)
        #expect(name == MPRISArtworkCache.name(of: png))
        #expect(name != MPRISArtworkCache.name(of: other))
        #expect(name.hasSuffix(".png") && name.count == 16 + 4)
    }
}
