/// What the stream choice of ``SoundCloudClient/stream(forTrack:allowPreview:)`` learnt about
/// a track's renditions while trying them, and the error to give when none would do.
struct StreamCheck: Sendable {
    /// The track.
    let track: SoundCloudTrack
    /// Its URN.
    let urn: String
    /// Full-track renditions that turned out to serve a snippet, in the order tried.
    var snippets: [SoundCloudStream] = []
    /// Renditions whose playlist is DRM-encrypted (`name (METHOD)`).
    var encrypted: [String] = []
    /// Renditions the API refused (404).
    var refused: [String] = []

    /// The error for a track none of whose renditions can be played as asked.
    func failure(streams: SoundCloudStreams, previews: [String], previewAccess: Bool,
                 allowPreview: Bool) -> SoundCloudError {
        let title = track.title
        if !allowPreview, previewAccess || !snippets.isEmpty || !previews.isEmpty {
            return .previewOnly(title: title)
        }
        let undecodable = streams.preferred.filter { !$0.isPlayable && !$0.isPreview }.map(\.name)
        if !undecodable.isEmpty, !previewAccess, refused.isEmpty {
            return .notPlayableYet(title: title, renditions: undecodable)
        }
        let drm = streams.encrypted + encrypted
        if !drm.isEmpty, refused.isEmpty { return .drmProtected(title: title, renditions: drm) }
        if streams.names.isEmpty { return .noStream(title: title, reason: "the track has no stream renditions") }
        if !refused.isEmpty {
            return .noStream(title: title, reason: "the API refused every rendition tried (\(refused.joined(separator: ", ")))")
        }
        return .noStream(title: title, reason: "no rendition StreamPlay can play (\(streams.names.joined(separator: ", ")))")
    }
}
