import Testing
@testable import StreamPlay

@Suite("Input facts (what a response says before its body)")
struct InputInfoTests {
    @Test("text types are refused whatever their case and parameters; audio, octet streams and none are sniffed")
    func textContentType() {
        #expect(InputInfo(contentType: "text/html; charset=utf-8").textContentType == "text/html; charset=utf-8")
        #expect(InputInfo(contentType: "Application/JSON").textContentType == "application/json")
        #expect(InputInfo(contentType: "application/xhtml+xml").textContentType != nil)
        #expect(InputInfo(contentType: "text/xml").textContentType != nil)
        #expect(InputInfo(contentType: "application/xml").textContentType != nil)
        #expect(InputInfo(contentType: "audio/mpeg").textContentType == nil)
        #expect(InputInfo(contentType: "application/octet-stream").textContentType == nil)
        #expect(InputInfo(contentType: "application/vnd.apple.mpegurl").textContentType == nil)
        #expect(InputInfo().textContentType == nil, "a file has no type")
    }

    @Test("a stream with no length, no ranges and no duration is endless; any of them makes it not")
    func endless() {
        #expect(InputInfo().isEndless)
        #expect(!InputInfo(totalLength: 1000).isEndless)
        #expect(!InputInfo(supportsRanges: true).isEndless)
        #expect(!InputInfo(duration: 60).isEndless)
    }
}
