import Testing

/// The SoundCloud client against the SoundCloud stand-in (scripts/service-stubs.py).
///
/// One suite in parts, a nested suite by feature in each `SoundCloudTests+*.swift` file; their
/// shared helpers are in `Support/SoundCloudTesting.swift`. The parts share the stand-in's state
/// (its injected failures, expired and revoked tokens, the CDN URLs' lifetime), so they run one
/// test at a time: `.serialized` applies to the nested suites too.
@Suite("SoundCloud client", .serialized, .needsTestServers)
struct SoundCloudTests {}
