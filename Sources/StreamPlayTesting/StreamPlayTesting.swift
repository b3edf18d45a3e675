// StreamPlayTesting: test support for code that uses StreamPlay's services, with no network.
//
// - InMemoryHTTPTransport: an HTTPTransport that routes requests to handlers by method, host
//   and path, records every request, and scripts failures (a status with Retry-After for the
//   next N requests to a path).
// - FakeSoundCloud, FakeSpotify, FakeSpark: the services behind it, at their real host names,
//   answering as their published references and the project's stand-in servers do; what
//   their sign-ins and tokens share comes from FakeOAuthService.
// - ScriptedMediaServer: a MediaTransport for every request of a Player (audio, radio and HLS
//   playlists, keys, segments) that serves bytes at URLs with scripted faults per request
//   (cuts, stalls, error statuses, lying lengths) and records the requests.
// - ManualClock: a PlaybackClock that moves only when the test advances it, for the input's
//   stall timeout, backoff and Retry-After without waiting (PlayerConfiguration.clock).
// - RecordingSink: an AudioSink that keeps what a Player decoded, one part per format.
//
// The overview for DocC is StreamPlayTesting.docc/StreamPlayTesting.md.
