import Foundation
import Testing
@testable import StreamPlayServices

extension SoundCloudTests {
    /// Numbers from the server that would trap (Retry-After, years, Expires) refused or clamped,
    /// and which URLs count as the API's origin.
    @Suite("SoundCloud hostile numbers and origins")
    struct HostileInput {
        @Test("server numbers that would trap are refused or clamped: Retry-After 1e30, huge years, absurd Expires")
        func hostileNumbers() {
            for seconds in [1e30, .infinity, Double(Int.max)] {
                let text = SoundCloudError.rateLimited(resetTime: nil, retryAfter: seconds).description
                #expect(text.contains("retry after \(Int(ServiceRetryPolicy.longestSleep)) s"), "\(text)")
            }
            #expect(SoundCloudError.rateLimited(resetTime: nil, retryAfter: 1.2).description.hasSuffix("retry after 2 s"))
            #expect(SoundCloudTimestamp.parse("2024/02/29 12:34:56 +0000") == Date(timeIntervalSince1970: 1_709_210_096))
            #expect(SoundCloudTimestamp.parse("2024-02-29T12:34:56Z") == Date(timeIntervalSince1970: 1_709_210_096))
            for text in ["9223372036854775807/01/01 00:00:00 +0000", "99999999999999/12/31 23:59:59 +0000",
                         "-9223372036854775807/01/01 00:00:00 +0000", "10000/01/01 00:00:00 +0000", "1969/12/31 23:59:59 +0000"] {
                #expect(SoundCloudTimestamp.parse(text) == nil, "\(text)")
            }
            let now = Date().timeIntervalSince1970
            let soon = SoundCloudStream.expiry(of: "https://cdn.example/a.mp3?Expires=\(Int(now) + 300)&Signature=x")
            #expect(soon.map { abs($0.timeIntervalSince1970 - (now + 300)) < 2 } == true)
            #expect(SoundCloudStream.expiry(of: "https://cdn.example/a.mp3?Expires=\(Int(now) - 60)") != nil, "an expired URL still says when")
            for expires in ["1e30", "inf", "-inf", "nan", "9223372036854775807", "\(Int(now) + 20 * 365 * 86400)", "-1", "soon"] {
                #expect(SoundCloudStream.expiry(of: "https://cdn.example/a.mp3?Expires=\(expires)") == nil, "\(expires)")
            }
        }

        @Test("origins: default ports are the same origin, protocol-relative Locations take the base's scheme")
        func origins() throws {
            #expect(URLOrigin("https://API.example.com:443/tracks") == URLOrigin("https://api.example.com/me"))
            #expect(URLOrigin("http://api.example.com:80") == URLOrigin("http://api.example.com/"))
            #expect(URLOrigin("https://api.example.com:8443/x") != URLOrigin("https://api.example.com/x"))
            #expect(URLOrigin("http://api.example.com/x") != URLOrigin("https://api.example.com/x"))
            #expect(URLOrigin("https://[::1]:443/x")?.description == "https://[::1]")
            for bad in ["https://user@api.example.com/", "https://api.example.com:99999/", "https://api.example.com:x/", "/tracks", "//api.example.com/x"] {
                #expect(URLOrigin(bad) == nil, "\(bad)")
            }
            #expect(SoundCloudClient.absolute("//cdn.example.com/a.mp3?Signature=s", base: "https://api.example.com/streams/1")
                == "https://cdn.example.com/a.mp3?Signature=s")
            #expect(SoundCloudClient.absolute("/tracks/2", base: "https://api.example.com:443/tracks/1") == "https://api.example.com/tracks/2")
            #expect(SoundCloudClient.absolute("/go?to=https://elsewhere.example/", base: "http://api.example.com:8080/x")
                == "http://api.example.com:8080/go?to=https://elsewhere.example/")
            let client = SoundCloudClient(configuration: ServiceConfiguration.defaults(for: .soundcloud))
            #expect(client.isOnAPIHost("https://api.soundcloud.com:443/tracks/1"))
            #expect(client.isOnAPIHost("HTTPS://API.SOUNDCLOUD.COM/me"))
            #expect(!client.isOnAPIHost("https://api.soundcloud.com.evil.example/me"))
            #expect(!client.isOnAPIHost("https://api.soundcloud.com@evil.example/me"))
            #expect(!client.isOnAPIHost("//api.soundcloud.com/me"))
        }
    }
}
