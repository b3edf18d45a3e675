import Foundation
import Testing

/// The real servers and media that `scripts/test.sh` starts and makes, found through the
/// environment. A missing variable fails the test that needs it: in CI, missing means failing.
enum TestEnvironment {
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
