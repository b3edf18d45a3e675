import ArgumentParser
import FoundationEssentials
import StreamPlay
import StreamPlayServices

/// `streamplay resolve LINK`: shows what a link plays, without playing it.
struct ResolveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resolve",
        abstract: "Print what a link resolves to (URL with its signature redacted, format, title, duration, expiry).")

    @Argument(help: "A SoundCloud or Spotify link or URI, or a plain URL.")
    var link: String

    @Flag(help: "Print one JSON object.")
    var json = false

    @OptionGroup var options: ServiceOptions

    func run() async throws {
        try await options.run("") { context in
            try await show(try await context.resolver().resolve(link))
        }
    }

    private func show(_ resolved: ResolvedStream) async throws {
        var fields: [(String, JSONValue)] = [
            ("url", .string(Redaction.secrets(in: resolved.url))),
            ("format", .string(resolved.format.rawValue)),
            ("service", .string(resolved.service?.rawValue ?? "none")),
            ("preview", .string(resolved.isPreview ? "yes" : "no")),
        ]
        if let reason = resolved.previewReason { fields.append(("preview_reason", .string(reason))) }
        if let title = resolved.title { fields.append(("title", .string(title))) }
        if let duration = resolved.duration, duration.isFinite {
            fields.append(("duration", .number((duration * 1000).rounded() / 1000)))
        }
        // Clamped by ResolvedStream: a server's absurd expiry must not trap the conversion.
        if let expiresIn = resolved.secondsUntilExpiry { fields.append(("expires_in", .integer(expiresIn))) }
        if json {
            StandardStream.output(JSONValue.line(Dictionary(fields, uniquingKeysWith: { $1 })) ?? "{}\n")
        } else {
            for (name, value) in fields { StandardStream.output("\(name): \(value.text)\n") }
        }
    }
}
