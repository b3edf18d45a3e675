import Logging

/// Sends swift-log's output to stderr: warnings and errors, or everything from debug on with
/// `--verbose`. The library never logs a token or a secret, so verbose output is safe to share.
enum LogSetup {
    static func bootstrap(verbose: Bool) {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = verbose ? .debug : .warning
            return handler
        }
    }
}
