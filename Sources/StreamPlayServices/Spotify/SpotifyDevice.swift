/// A Spotify Connect device of the user (`GET /v1/me/player/devices`): a phone, a computer, a
/// speaker that runs Spotify and can be controlled.
public struct SpotifyDevice: Sendable, Equatable {
    /// The device id (nil for devices that cannot be addressed; pass it as `deviceID`).
    public var id: String?
    /// The name the user gave it.
    public var name: String
    /// "Computer", "Smartphone", "Speaker", ...
    public var type: String
    /// Whether it is the device playback commands go to.
    public var isActive: Bool
    /// Whether it is in a private session.
    public var isPrivateSession: Bool
    /// Whether the Web API may not control it.
    public var isRestricted: Bool
    /// The volume, 0 to 100, if it has one.
    public var volumePercent: Int?
    /// Whether its volume can be set.
    public var supportsVolume: Bool

    /// A device.
    public init(id: String?, name: String, type: String, isActive: Bool = false, isPrivateSession: Bool = false,
                isRestricted: Bool = false, volumePercent: Int? = nil, supportsVolume: Bool = false) {
        self.id = id
        self.name = name
        self.type = type
        self.isActive = isActive
        self.isPrivateSession = isPrivateSession
        self.isRestricted = isRestricted
        self.volumePercent = volumePercent
        self.supportsVolume = supportsVolume
    }

    /// A device object of the Web API.
    init(json: JSON, status: Int) throws(SpotifyError) {
        guard let name = json["name"]?.string else {
            throw .invalidResponse(reason: "a device object without a name", status: status)
        }
        self.init(id: json["id"]?.string, name: name, type: json["type"]?.string ?? "Unknown",
                  isActive: json["is_active"]?.bool ?? false, isPrivateSession: json["is_private_session"]?.bool ?? false,
                  isRestricted: json["is_restricted"]?.bool ?? false, volumePercent: json["volume_percent"]?.int,
                  supportsVolume: json["supports_volume"]?.bool ?? false)
    }
}
