import ArgumentParser
import StreamPlay
import StreamPlayServices

/// What the service commands share: the settings (config file and environment), the encrypted
/// token store, one HTTP client, and the service clients made from them.
struct ServiceContext {
    let settings: ServiceSettings
    let store: EncryptedFileTokenStore
    let http: CurlHTTPClient

    /// Reads the settings; `caFile` replaces the system's certificate authorities.
    init(caFile: String?) throws {
        do {
            settings = try ServiceSettings.load()
        } catch {
            throw CommandFailure(error.description)
        }
        store = EncryptedFileTokenStore()
        var configuration = CurlHTTPClient.Configuration()
        configuration.caCertificatesPath = caFile
        http = CurlHTTPClient(configuration: configuration)
    }

    /// The configuration of `service`, which must have a client id.
    func configuration(_ service: StreamingService, redirectURI: String? = nil) throws -> ServiceConfiguration {
        do {
            var configuration = try settings.requireConfigured(service)
            if let redirectURI { configuration.redirectURI = redirectURI }
            return configuration
        } catch {
            throw CommandFailure(error.description)
        }
    }

    func soundCloud(redirectURI: String? = nil) throws -> SoundCloudClient {
        SoundCloudClient(configuration: try configuration(.soundcloud, redirectURI: redirectURI), http: http, store: store)
    }

    func spotify(redirectURI: String? = nil) throws -> SpotifyClient {
        SpotifyClient(configuration: try configuration(.spotify, redirectURI: redirectURI), http: http, store: store)
    }

    func spark(redirectURI: String? = nil) throws -> SparkClient {
        SparkClient(configuration: try configuration(.spark, redirectURI: redirectURI), http: http, store: store)
    }

    /// A resolver with every service that has a client id.
    func resolver() -> StreamResolver {
        StreamResolver(soundCloud: try? soundCloud(), spotify: try? spotify())
    }

    /// The signed-in account's name: SoundCloud's username, Spotify's display name (or id),
    /// Spark's account name.
    func accountName(_ service: StreamingService) async throws -> String {
        do {
            switch service {
            case .soundcloud:
                return try await soundCloud().me().username
            case .spotify:
                let user = try await spotify().me()
                return user.displayName ?? user.id
            case .spark:
                return try await spark().account().name
            }
        } catch let error as CommandFailure {
            throw error
        } catch {
            throw CommandFailure("\(service): \(error)")
        }
    }
}

/// A failure a command reports as one line on stderr, exiting 1.
struct CommandFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension StreamingService: ExpressibleByArgument {}
