import FoundationEssentials

/// Reads the playlist files radio sites link to: M3U (`#EXTM3U`, or bare lines) and PLS.
///
/// The text comes from the network, so the parser only takes what it understands: entries are
/// kept when they are http(s) URLs, file URLs or paths; everything else is skipped. Relative
/// entries are resolved against the playlist's own location.
enum PlaylistParser {
    /// The kind of playlist, judged by the name or the Content-Type.
    enum Kind: Equatable {
        case m3u
        case pls
    }

    /// The kind of playlist `location` names, by its extension (query ignored).
    static func kind(of location: String) -> Kind? {
        let path = location.split(separator: "?", maxSplits: 1).first.map(String.init) ?? location
        let lowered = path.lowercased()
        if lowered.hasSuffix(".m3u") { return .m3u }
        if lowered.hasSuffix(".pls") { return .pls }
        return nil
    }

    /// The entries of `text`, in order, resolved against `base` (the playlist's URL or path).
    static func entries(of text: String, kind: Kind, base: String) -> [String] {
        // isNewline: "\r\n" is one Character in Swift, so comparing with "\n" would miss it.
        let lines = text.split(whereSeparator: \.isNewline)
            .map { $0.trimmingWhitespace() }
        var result: [String] = []
        switch kind {
        case .m3u:
            for line in lines where !line.isEmpty && !line.hasPrefix("#") {
                if let entry = RelativeLocation.resolve(line, against: base) { result.append(entry) }
            }
        case .pls:
            // File1=…, File2=…: ordered by their number, not by line.
            var numbered: [(Int, String)] = []
            for line in lines {
                guard line.lowercased().hasPrefix("file"), let equals = line.firstIndex(of: "="),
                      let number = Int(line[line.index(line.startIndex, offsetBy: 4)..<equals]) else { continue }
                let value = line[line.index(after: equals)...].trimmingWhitespace()
                if let entry = RelativeLocation.resolve(value, against: base) { numbered.append((number, entry)) }
            }
            result = numbered.sorted { $0.0 < $1.0 }.map(\.1)
        }
        return result
    }
}
