import StreamPlay

/// A track to upload (`POST /tracks`), with its sharing, as the upload & share guide describes:
/// public tracks can be posted to the user's connections, private ones shared by e-mail.
///
/// ```swift
/// var upload = SoundCloudUpload(asset: .file(path: "/tmp/take1.mp3"), title: "Take 1")
/// upload.tags = [.plain("live"), .plain("hip hop")] + SoundCloudTag.geo(latitude: 52.52, longitude: 13.40)
/// upload.sharingTargets = .connections([twitter.id])
/// let track = try await client.upload(upload) { sent, total in print(sent, total) }
/// ```
public struct SoundCloudUpload: Sendable, Equatable {
    /// The audio (`track[asset_data]`).
    public var asset: SoundCloudUploadAsset
    /// The title (`track[title]`; required, at most 255 characters).
    public var title: String
    /// Public or private (`track[sharing]`).
    public var sharing: SoundCloudSharing
    /// Plain and machine tags (`track[tag_list]`).
    public var tags: [SoundCloudTag]
    /// Legacy: which connections a public track is posted to (`track[post_to]`, from the 2012
    /// upload & share guide; not in today's OpenAPI).
    public var sharingTargets: SoundCloudSharingTargets
    /// Legacy: e-mail addresses a private track is shared with
    /// (`track[shared_to][emails][][address]`, from the 2012 guide; not in today's OpenAPI).
    public var sharedToEmails: [String]
    /// `track[description]`.
    public var description: String?
    /// `track[genre]`.
    public var genre: String?
    /// `track[license]`: `all-rights-reserved`, `cc-by`, ...
    public var license: String?
    /// `track[type]`: `original`, `remix`, `live`, `recording`, `podcast`, ...
    public var trackType: String?
    /// `track[downloadable]`.
    public var downloadable: Bool?
    /// `track[streamable]`.
    public var streamable: Bool?
    /// `track[commentable]`.
    public var commentable: Bool?
    /// `track[embeddable_by]`: `all`, `me`, `none`.
    public var embeddableBy: String?
    /// `track[release_date]`, `yyyy-mm-dd`.
    public var releaseDate: String?
    /// `track[permalink]`, the page's path name.
    public var permalink: String?
    /// `track[sharing_note]`: the text of the post on the connections.
    public var sharingNote: String?
    /// `track[label_name]`.
    public var labelName: String?
    /// `track[isrc]`.
    public var isrc: String?
    /// `track[purchase_url]`.
    public var purchaseURL: String?
    /// The artwork image (`track[artwork_data]`).
    public var artwork: SoundCloudUploadAsset?

    /// An upload of `asset` titled `title`; the rest as given or left to SoundCloud's defaults.
    public init(asset: SoundCloudUploadAsset, title: String, sharing: SoundCloudSharing = .public,
                tags: [SoundCloudTag] = [], sharingTargets: SoundCloudSharingTargets = .defaults,
                sharedToEmails: [String] = []) {
        self.asset = asset
        self.title = title
        self.sharing = sharing
        self.tags = tags
        self.sharingTargets = sharingTargets
        self.sharedToEmails = sharedToEmails
    }

    /// Whether the upload uses the legacy sharing fields (`track[post_to]`, `track[shared_to]`).
    public var usesLegacySharing: Bool { sharingTargets != .defaults || !sharedToEmails.isEmpty }

    /// The multipart form of `POST /tracks`, with the field names of the API.
    /// - Throws: ``SoundCloudError/invalidRequest(reason:)`` for sharing that cannot work: posts
    ///   to connections of a private track, e-mails for a public one, a tag the list cannot carry.
    public func multipartForm() throws(SoundCloudError) -> MultipartForm {
        if sharing == .private, case .connections(let ids) = sharingTargets, !ids.isEmpty {
            throw .invalidRequest(reason: "a private track cannot be posted to connections; share it by e-mail")
        }
        if sharing == .public, !sharedToEmails.isEmpty {
            throw .invalidRequest(reason: "e-mail sharing is for private tracks; post public ones to connections")
        }
        var form = MultipartForm([asset.part(name: "track[asset_data]")])
        form.add("track[title]", title)
        form.add("track[sharing]", sharing.rawValue)
        if !tags.isEmpty { form.add("track[tag_list]", try SoundCloudTag.list(tags)) }
        switch sharingTargets {
        case .defaults: break
        case .nobody: form.add("track[post_to][]", "")
        case .connections(let ids):
            if ids.isEmpty { form.add("track[post_to][]", "") }
            for id in ids { form.add("track[post_to][][id]", String(id)) }
        }
        for address in sharedToEmails { form.add("track[shared_to][emails][][address]", address) }
        let optional: [(String, String?)] = [
            ("track[description]", description), ("track[genre]", genre), ("track[license]", license),
            ("track[type]", trackType), ("track[downloadable]", downloadable.map(String.init)),
            ("track[streamable]", streamable.map(String.init)), ("track[commentable]", commentable.map(String.init)),
            ("track[embeddable_by]", embeddableBy), ("track[release_date]", releaseDate), ("track[permalink]", permalink),
            ("track[sharing_note]", sharingNote), ("track[label_name]", labelName), ("track[isrc]", isrc),
            ("track[purchase_url]", purchaseURL),
        ]
        for case let (name, value?) in optional { form.add(name, value) }
        if let artwork { form.parts.append(artwork.part(name: "track[artwork_data]")) }
        return form
    }
}
