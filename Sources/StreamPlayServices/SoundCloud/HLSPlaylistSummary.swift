/// What the stream check needs to know of an HLS playlist: its total length, whether its media
/// is DRM-encrypted, and, for a master playlist, its first variant. Not a full parser (the
/// engine has its own): only `#EXTINF`, `#EXT-X-KEY`, `#EXT-X-SESSION-KEY` and
/// `#EXT-X-STREAM-INF` are read.
struct HLSPlaylistSummary: Sendable, Equatable {
    /// The sum of the segments' `#EXTINF` durations, in seconds.
    var totalDuration: Double
    /// Segments listed.
    var segmentCount: Int
    /// The encryption method of a key the engine cannot use (`SAMPLE-AES`, `SAMPLE-AES-CTR`,
    /// ...), if any: DRM.
    var drmMethod: String?
    /// The first variant's URI, as written, when this is a master playlist.
    var firstVariant: String?

    /// Reads `text`; nil when it is not an HLS playlist (no `#EXTM3U` first).
    init?(_ text: String) {
        let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmedWhitespace }
        guard lines.first?.hasPrefix("#EXTM3U") == true else { return nil }
        totalDuration = 0
        segmentCount = 0
        var expectVariant = false
        for line in lines {
            if line.hasPrefix("#EXTINF:") {
                let value = line.dropFirst("#EXTINF:".count).prefix { $0 != "," }
                totalDuration += Double(value.trimmedWhitespace) ?? 0
                segmentCount += 1
            } else if line.hasPrefix("#EXT-X-KEY:") || line.hasPrefix("#EXT-X-SESSION-KEY:") {
                if let method = Self.attribute("METHOD", in: line), method != "NONE", method != "AES-128" {
                    drmMethod = drmMethod ?? method
                }
            } else if line.hasPrefix("#EXT-X-STREAM-INF") {
                expectVariant = true
            } else if expectVariant, !line.isEmpty, !line.hasPrefix("#") {
                firstVariant = firstVariant ?? line
                expectVariant = false
            }
        }
    }

    /// Whether this is a master playlist (variants, no segments).
    var isMaster: Bool { firstVariant != nil && segmentCount == 0 }

    /// Whether `totalDuration` falls well short of a track of `trackDuration` seconds: under
    /// half of it. A preview clip is about 30 s of a track of minutes; a rendition a few
    /// seconds off the stated length is not one.
    func isSnippet(ofTrackLasting trackDuration: Double?) -> Bool {
        guard let trackDuration, trackDuration > 0, segmentCount > 0 else { return false }
        return totalDuration < trackDuration / 2
    }

    /// The value of attribute `name` in a tag line (`METHOD=SAMPLE-AES,URI="..."`), unquoted.
    private static func attribute(_ name: String, in line: String) -> String? {
        guard let colon = line.firstIndex(of: ":") else { return nil }
        var rest = Substring(line[line.index(after: colon)...])
        while !rest.isEmpty {
            let key = rest.prefix { $0 != "=" && $0 != "," }
            rest = rest.dropFirst(key.count)
            var value = Substring("")
            if rest.first == "=" {
                rest = rest.dropFirst()
                if rest.first == "\"" {
                    rest = rest.dropFirst()
                    value = rest.prefix { $0 != "\"" }
                    rest = rest.dropFirst(value.count + 1)
                } else {
                    value = rest.prefix { $0 != "," }
                    rest = rest.dropFirst(value.count)
                }
            }
            if rest.first == "," { rest = rest.dropFirst() }
            if key.trimmedWhitespace.uppercased() == name { return String(value) }
        }
        return nil
    }
}
