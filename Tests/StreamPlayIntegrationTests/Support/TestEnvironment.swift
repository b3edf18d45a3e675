import Foundation
import Testing

/// The real servers and media that `scripts/test.sh` starts and makes, found through the
/// environment.
///
/// Suites that need them carry ``needsTestServers``: a plain `swift test` skips them, saying why,
/// when the servers' environment is absent. `scripts/test.sh` (and so CI) sets
/// `STREAMPLAY_REQUIRE_SERVERS=1`, which runs them whatever the environment, so that a missing
/// variable fails the test that needs it: in CI, missing means failing.
enum TestEnvironment {
    /// Whether suites that need the servers run: their environment is there, or it is required.
    static var serversExpected: Bool {
        let environment = ProcessInfo.processInfo.environment
        return environment["STREAMPLAY_REQUIRE_SERVERS"] == "1" || environment["STREAMPLAY_TEST_HTTP"]?.isEmpty == false
    }

    struct Missing: Error, CustomStringConvertible {
        let name: String
        var description: String { "\(name) is not set: run the tests with `bash scripts/test.sh`" }
    }

    static func value(_ name: String) throws -> String {
        guard let value = ProcessInfo.processInfo.environment[name], !value.isEmpty else {
            throw Missing(name: name)
        }
        return value
    }

    /// Base URL of nginx over HTTP, e.g. http://127.0.0.1:PORT
    static func http() throws -> String { try value("STREAMPLAY_TEST_HTTP") }
    /// Base URL of nginx over HTTPS (self-signed certificate).
    static func https() throws -> String { try value("STREAMPLAY_TEST_HTTPS") }
    /// The PEM file that makes ``https()`` verify.
    static func caFile() throws -> String { try value("STREAMPLAY_TEST_CA") }
    /// The directory nginx serves: test media and reference decodes.
    static func media() throws -> String { try value("STREAMPLAY_TEST_MEDIA") }
    static func blackHole() throws -> String { try value("STREAMPLAY_TEST_BLACKHOLE") }
    static func refused() throws -> String { try value("STREAMPLAY_TEST_REFUSED") }
    static func pulseServer() throws -> String { try value("PULSE_SERVER") }
    static func pulseSink() throws -> String { try value("STREAMPLAY_TEST_PULSE_SINK") }
    static func accessLog() throws -> String { try value("STREAMPLAY_TEST_ACCESS_LOG") }

    /// A fresh path in the temporary directory.
    static func temporaryPath(_ name: String) -> String {
        let directory = FileManager.default.temporaryDirectory.path
        return "\(directory)/streamplay-\(UUID().uuidString.prefix(8))-\(name)"
    }
}

extension Trait where Self == ConditionTrait {
    /// For a suite that needs the servers `scripts/test.sh` starts (see
    /// ``TestEnvironment/serversExpected``).
    static var needsTestServers: Self {
        .enabled(if: TestEnvironment.serversExpected,
                 "needs the test servers (nginx, PulseAudio, Icecast, stand-ins): run `bash scripts/test.sh`")
    }
}
