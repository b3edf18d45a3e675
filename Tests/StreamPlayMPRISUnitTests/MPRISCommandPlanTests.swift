@testable import StreamPlay
@testable import StreamPlayMPRIS
import Testing

/// What MPRIS commands come to for a player in a given state: no bus, no player.
@Suite struct MPRISCommandPlanTests {
    private func view(_ state: PlayerState, index: Int? = 0, count: Int = 2, duration: Double? = 30) throws -> MPRISPlayerView {
        MPRISPlayerView(state: state, currentIndex: index, queueCount: count,
                        item: index == nil ? nil : QueueItem(id: 5, location: try MediaLocation(parsing: "/a.mp3")),
                        duration: duration)
    }

    @Test func playResumesOrPlaysTheQueueAgain() throws {
        #expect(MPRISCommandPlan.play(try view(.paused)) == .resume)
        #expect(MPRISCommandPlan.play(try view(.ended, index: 1)) == .playItem(1))
        #expect(MPRISCommandPlan.play(try view(.idle, index: nil)) == .playItem(0))
        #expect(MPRISCommandPlan.play(try view(.idle, index: nil, count: 0)) == .ignore)
        #expect(MPRISCommandPlan.play(try view(.playing)) == .ignore)
    }

    @Test func pauseAndPlayPause() throws {
        #expect(MPRISCommandPlan.pause(try view(.playing)) == .pause)
        #expect(MPRISCommandPlan.pause(try view(.buffering)) == .pause)
        #expect(MPRISCommandPlan.pause(try view(.ended)) == .ignore)
        #expect(MPRISCommandPlan.playPause(try view(.playing)) == .pause)
        #expect(MPRISCommandPlan.playPause(try view(.paused)) == .resume)
    }

    @Test func seekIsRelativeAndClamped() throws {
        #expect(MPRISCommandPlan.seek(by: 5_000_000, from: 10, try view(.playing)) == .seek(15))
        #expect(MPRISCommandPlan.seek(by: -20_000_000, from: 10, try view(.playing)) == .seek(0))
        #expect(MPRISCommandPlan.seek(by: 60_000_000, from: 10, try view(.playing)) == .next,
                "past the end acts as Next")
        #expect(MPRISCommandPlan.seek(by: 60_000_000, from: 10, try view(.playing, index: 1)) == .ignore,
                "past the end of the last item there is no next")
        #expect(MPRISCommandPlan.seek(by: 1_000_000, from: 10, try view(.playing, duration: nil)) == .ignore,
                "a live stream does not seek")
    }

    @Test func setPositionNeedsTheCurrentTrackAndAPositionWithinIt() throws {
        let playing = try view(.playing)
        #expect(MPRISCommandPlan.setPosition(trackID: "/org/streamplay/track/5", position: 12_000_000, playing) == .seek(12))
        #expect(MPRISCommandPlan.setPosition(trackID: "/org/streamplay/track/4", position: 12_000_000, playing) == .ignore)
        #expect(MPRISCommandPlan.setPosition(trackID: "/org/streamplay/track/5", position: -1, playing) == .ignore)
        #expect(MPRISCommandPlan.setPosition(trackID: "/org/streamplay/track/5", position: 31_000_000, playing) == .ignore)
    }

    @Test func volumeIsNeverNegative() {
        #expect(MPRISCommandPlan.volume(-0.5) == 0)
        #expect(MPRISCommandPlan.volume(0.4) == 0.4)
        #expect(MPRISCommandPlan.volume(.nan) == nil)
    }

    @Test func busNamesAreChecked() {
        #expect(MPRISService.isValidName("streamplay"))
        #expect(MPRISService.isValidName("my_player-2"))
        #expect(!MPRISService.isValidName("2player"))
        #expect(!MPRISService.isValidName("a.b"))
        #expect(!MPRISService.isValidName(""))
    }
}
