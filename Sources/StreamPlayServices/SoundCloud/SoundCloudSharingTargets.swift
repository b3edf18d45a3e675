/// Legacy: where a public upload is announced (`track[post_to]`), as the 2012 upload & share
/// guide describes; today's OpenAPI no longer lists the field.
public enum SoundCloudSharingTargets: Sendable, Equatable {
    /// The user's default settings on SoundCloud: connections with `post_publish` on (no
    /// `track[post_to]` field is sent).
    case defaults
    /// No connection (`track[post_to][]` sent empty).
    case nobody
    /// These connections, by id (`track[post_to][][id]` each). A foursquare connection needs a
    /// `foursquare:venue=` machine tag.
    case connections([Int])
}
