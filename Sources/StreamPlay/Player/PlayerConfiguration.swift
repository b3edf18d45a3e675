import CStreamPlayVersion
import Logging

/// Everything a ``Player`` can be tuned with. The defaults suit a desktop player on a normal link.
public struct PlayerConfiguration: Sendable {
    /// Where decoded audio goes.
    public var output: AudioOutput = .pulseAudio()
    /// Bound on buffered encoded input, in bytes. Memory never grows past it with the track.
    /// At 128 kbit/s the default of 512 KiB holds about 32 s.
    public var inputBufferCapacity = 512 * 1024
    /// Decoded audio, in seconds, handed to the sink before playback starts (and after a seek).
    /// Low, so that audio starts quickly.
    public var prebuffer = 0.1
    /// Buffered audio, in seconds, the sound server aims to hold once playing: the default is
    /// ``defaultTargetLatency``.
    public var targetLatency = defaultTargetLatency

    /// 1 s. A machine with every core busy needs that much: there a player's decoder thread
    /// (or the sound server) can be held up for a few hundred milliseconds, and 0.2 s runs dry,
    /// as the benchmark harness's busy-machine scenario shows (even `pacat` playing PCM from
    /// disk goes silent there on 0.2 s, and not on 1 s). A larger queue delays little a
    /// listener does: output still starts at ``prebuffer``, pause, seek, stop and volume act
    /// on the server's stream at once, a gapless join is announced when it is heard, and the
    /// sound server's device keeps the share a 0.2 s target gives it, so that a start or a
    /// refill is not swallowed whole by it (the rest is the stream's queue).
    public static let defaultTargetLatency = 1.0
    /// Seconds a PulseAudio or PipeWire server that goes away mid-play (restarted, crashed) may
    /// take to come back. Playback then goes on where it was heard; after this long the play
    /// fails with `soundServerUnavailable`. 0 fails at once.
    public var soundServerReconnectTimeout = 5.0
    /// Seconds a PulseAudio or PipeWire server may stay silent while a track's stream opens:
    /// connecting, finding the named sink, making the stream. A server that accepts the
    /// connection and then never answers fails the play with `soundServerUnavailable` after
    /// this long (the play is ``PlayerState/buffering`` meanwhile: the stream opens at the first
    /// decoded audio). A server that is slow but answering, such as one opening many streams at
    /// once, is waited for: its answers to the process's other streams on the same connection
    /// count, and libpulse's own reply timeout (30 s) bounds each request. At least 0.1 s.
    public var soundServerConnectTimeout = 10.0
    /// After the input ran dry, seconds of audio (at the stream's bitrate) buffered again before
    /// playback goes on: well above the point where it stopped, so that it does not stop and
    /// start again every moment. Two kinds of stall refill otherwise. A first stall (the first
    /// since output started or since a seek, or one long after the last refill) refills twice
    /// the ``prebuffer``, at most this, unless the link is measured about as fast as the
    /// stream: it says more about a late burst or a busy CPU than about the link. A link
    /// measured slower than the stream, with a known length, buffers what the rest of the track
    /// lacks (so it stalls once, not many times). Every refill is at most three quarters of
    /// the input buffer.
    public var rebufferRefill = 2.0
    /// Seconds allowed for the TCP and TLS connection.
    public var connectTimeout = 10.0
    /// Seconds without a single byte (while the buffer wants more) before a transfer fails.
    public var stallTimeout = 20.0
    /// Seconds an input waits for a URL refresher's answer (a service re-signing an expired
    /// URL may itself wait out a rate limit) before the expired URL's error stands.
    public var urlRefreshTimeout = 30.0
    /// How a broken or stalled connection is resumed.
    public var reconnect = ReconnectPolicy()
    /// Redirects followed at most for one request.
    public var maxRedirects = 10
    /// User-Agent sent with every request.
    public var userAgent = "StreamPlay/\(StreamPlayVersion.current)"
    /// A PEM file of certificate authorities to trust instead of the system's. TLS is always verified.
    public var caCertificatesPath: String?
    /// Extra request headers (for example an Authorization header from a resolver), sent with
    /// every request of a play: the stream, and HLS playlists, keys and segments.
    public var requestHeaders: [String: String] = [:]
    /// For an HLS master playlist: the highest bandwidth (bits per second, as its variants
    /// declare) to choose. The best MP3 variant at or below it plays, or the lowest if none is;
    /// `nil` (the default) chooses the highest.
    public var hlsMaximumBandwidth: Int?
    /// Which ReplayGain to apply, with what preamp, and whether the peak limits it. Off by
    /// default; see ``ReplayGainSettings`` for each field's default.
    public var replayGain = ReplayGainSettings()
    /// Where the player's requests for media run (audio, radio and HLS playlists, keys,
    /// segments, a tag's bytes): `nil` (the default) for the network, through libcurl; a
    /// ``MediaTransport`` of the caller's own (StreamPlayTesting's `ScriptedMediaServer`) to
    /// serve them from elsewhere, with the engine's recovery unchanged.
    public var mediaTransport: (any MediaTransport)?
    /// The time the inputs decide by: a progressive HTTP input's ``stallTimeout``, its
    /// reconnect backoff and a server's Retry-After; an HLS input's live playlist reloads, its
    /// timeout for a live playlist that stopped growing and its backoff before resuming a
    /// segment; the wait for a URL refresher (``urlRefreshTimeout``) and for an MP3's ID3v1
    /// tag; an HLS segment's stall timeout, and the time limit of a playlist's or key's request;
    /// and the transfer rate a rebuffer's refill is sized by. The real monotonic clock by
    /// default; a test gives StreamPlayTesting's `ManualClock` to play out long waits without
    /// waiting. The output's pacing and libcurl's own connect timeout keep the real clock.
    public var clock: any PlaybackClock = MonotonicPlaybackClock()
    /// Where the engine logs; never with tokens or query strings.
    public var logger = Logger(label: "streamplay")

    /// Creates the default configuration.
    public init() {}

    /// Creates the default configuration with another output.
    public init(output: AudioOutput) {
        self.output = output
    }
}

/// How the input recovers when a transfer fails: a dropped or stalled connection, a server
/// restarting, a rate limit, an expired signed URL.
///
/// A transfer that breaks after delivering audio is resumed with a Range request from the first
/// byte not yet received, into the same buffer, so the decoder sees one unbroken stream. Each
/// retry waits longer (see ``Backoff``); the count starts again whenever bytes arrive. A first
/// connection that fails is not retried: its error is reported at once. The rules are those of
/// the engine's reconnect planner, the same for progressive inputs and HLS segments; the
/// Network behaviour article lists them.
public struct ReconnectPolicy: Sendable, Equatable {
    /// Consecutive retries without a byte received before the play fails.
    public var maximumRetries = 5
    /// Seconds before the first retry; each later one waits twice as long as the one before.
    public var initialDelay = 0.1
    /// Longest wait between retries, in seconds.
    public var maximumDelay = 3.0
    /// Longest Retry-After (HTTP 429, 503) honoured, in seconds; longer ones fail at once.
    public var maximumRetryAfter = 10.0

    /// Creates the default policy.
    public init() {}
}

/// The version of the StreamPlay library.
public enum StreamPlayVersion {
    /// Semantic version string (`STREAMPLAY_VERSION` of the C header the `streamplay` front end
    /// prints it from).
    public static let current: String = STREAMPLAY_VERSION
}
