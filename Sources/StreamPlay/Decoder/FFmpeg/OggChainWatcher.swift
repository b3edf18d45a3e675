/// Watches the Ogg pages libavformat reads, for two things the demuxer does not tell reliably:
/// the comment header of each logical stream that begins (a chained stream's Vorbis comments or
/// OpusTags), and whether the input ends part-way through a page (a file cut short).
///
/// FFmpeg 5.1 reports a new Vorbis chain's comments as packet side data but drops a new Opus
/// chain's, so the pages are read here, the same way for both. Each comment found is kept with
/// the byte offset where its page ends: the new stream's first audio packet lies at or past it,
/// which ties the names to the audio they belong to.
///
/// Confined to the decoder thread, as the ``AVIOBridge`` that feeds it.
final class OggChainWatcher {
    /// Names from a comment header, and the input offset the stream's audio starts at or after.
    struct Comment: Equatable {
        let endOffset: Int
        let tags: StreamMetadata?
    }

    /// Comments found and not yet taken, in input order.
    private(set) var comments: [Comment] = []
    /// Whether what was read last ends part-way through a page: a file cut short there. The
    /// bytes left over follow the last whole page directly and begin as a page does ("OggS",
    /// or as much of it as is there). Neither a last page not marked end-of-stream (a recording
    /// of a live stream is often cut between pages) nor bytes after the last page that are no
    /// page at all (an ID3v1 or APEv2 tag some taggers append) is a sign of that: ffmpeg and
    /// mpv play both whole.
    var endsMidPage: Bool {
        let head = pending.prefix(Self.capturePattern.count)
        return !skippedSincePage && !head.isEmpty && head.elementsEqual(Self.capturePattern.prefix(head.count))
    }

    /// Whether bytes that are no page were passed over since the last whole page.
    private var skippedSincePage = false

    /// The bytes every page begins with ("OggS").
    private static let capturePattern: [UInt8] = Array("OggS".utf8)

    private var pending: [UInt8] = []
    /// The input offset of `pending[0]`, and of the next byte expected.
    private var pendingStart = 0
    private var nextOffset: Int?
    /// The end of the last comment taken: the demuxer reads some pages twice (it seeks back to
    /// parse a new stream's headers), and a comment is reported once.
    private var takenUpTo = -1
    /// Logical streams whose comment header is still to come: the packet index reached, and
    /// the comment's bytes so far.
    private var awaiting: [UInt32: (packet: Int, bytes: [UInt8])] = [:]

    /// A comment header larger than this keeps only its start (the names come before a cover).
    private static let commentLimit = 256 * 1024
    private static let headerSize = 27

    /// Bytes libavformat read at `offset`. A read elsewhere than where the last one ended (a
    /// seek) starts the page search afresh.
    func observe(_ bytes: UnsafeRawBufferPointer, at offset: Int) {
        if nextOffset != offset {
            pending.removeAll(keepingCapacity: true)
            awaiting.removeAll()
            pendingStart = offset
            skippedSincePage = false
        }
        nextOffset = offset + bytes.count
        pending.append(contentsOf: bytes)
        parsePages()
    }

    /// Takes the comments of the streams whose audio starts at or before `offset`, oldest first.
    func takeComments(before offset: Int) -> [Comment] {
        let count = comments.prefix { $0.endOffset <= offset }.count
        defer { comments.removeFirst(count) }
        if count > 0 { takenUpTo = comments[count - 1].endOffset }
        return Array(comments.prefix(count))
    }

    /// Forgets the comments found (after a seek, their places in the audio are gone).
    func dropComments() { comments.removeAll() }

    private func parsePages() {
        var start = 0
        defer {
            pending.removeFirst(start)
            pendingStart += start
        }
        while pending.count - start >= Self.headerSize {
            guard pending[start] == 0x4F, pending[start + 1] == 0x67, pending[start + 2] == 0x67, pending[start + 3] == 0x53 else {
                // Not at a page: search on (damage, or a read that began mid-page).
                start += 1
                skippedSincePage = true
                continue
            }
            let segments = Int(pending[start + 26])
            guard pending.count - start >= Self.headerSize + segments else { return }
            let lacing = pending[(start + Self.headerSize)..<(start + Self.headerSize + segments)]
            let bodySize = lacing.reduce(0) { $0 + Int($1) }
            let pageSize = Self.headerSize + segments + bodySize
            guard pending.count - start >= pageSize else { return }
            page(at: start, lacing: lacing, pageEnd: pendingStart + start + pageSize)
            start += pageSize
            skippedSincePage = false
        }
    }

    private func page(at start: Int, lacing: ArraySlice<UInt8>, pageEnd: Int) {
        let flags = pending[start + 5]
        let serial = (0..<4).reduce(UInt32(0)) { $0 | UInt32(pending[start + 14 + $1]) << (8 * $1) }
        if flags & 0x02 != 0 { awaiting[serial] = (0, []) }
        guard var stream = awaiting[serial] else { return }
        var at = start + Self.headerSize + lacing.count
        for length in lacing {
            let size = Int(length)
            if stream.packet == 1, stream.bytes.count < Self.commentLimit {
                stream.bytes.append(contentsOf: pending[at..<(at + min(size, Self.commentLimit - stream.bytes.count))])
            }
            at += size
            guard length < 255 else { continue }
            if stream.packet == 1 {
                if pageEnd > takenUpTo, !comments.contains(where: { $0.endOffset == pageEnd }) {
                    comments.append(Comment(endOffset: pageEnd, tags: VorbisComment.read(stream.bytes)))
                }
                awaiting[serial] = nil
                return
            }
            stream.packet += 1
        }
        awaiting[serial] = stream
    }
}

/// The names in a Vorbis comment packet, as Vorbis (`\u{3}vorbis`) and Opus (`OpusTags`)
/// streams carry them: a vendor string, then `KEY=value` fields in UTF-8, keys without case.
enum VorbisComment {
    static func read(_ packet: [UInt8]) -> StreamMetadata? {
        let vorbis: [UInt8] = [3] + Array("vorbis".utf8), opus = Array("OpusTags".utf8)
        var at: Int
        if packet.starts(with: vorbis) { at = vorbis.count } else if packet.starts(with: opus) { at = opus.count } else { return nil }
        func length() -> Int? {
            guard at + 4 <= packet.count else { return nil }
            defer { at += 4 }
            return (0..<4).reduce(0) { $0 | Int(packet[at + $1]) << (8 * $1) }
        }
        guard let vendor = length() else { return nil }
        at += vendor
        guard let count = length() else { return nil }
        var fields: [String: String] = [:]
        for _ in 0..<count {
            guard let size = length(), at + size <= packet.count else { break }
            let field = String(decoding: packet[at..<(at + size)], as: UTF8.self)
            at += size
            guard let equals = field.firstIndex(of: "=") else { continue }
            let key = field[..<equals].uppercased(), value = String(field[field.index(after: equals)...]).trimmingWhitespace()
            if fields[key] == nil, !value.isEmpty { fields[key] = String(value) }
        }
        let names = StreamMetadata(title: fields["TITLE"], artist: fields["ARTIST"], album: fields["ALBUM"],
                                   trackNumber: fields["TRACKNUMBER"].flatMap { StreamMetadata.trackNumber(from: $0) },
                                   artwork: nil)
        return names.isEmpty ? nil : names
    }
}
