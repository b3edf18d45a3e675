/// What comes of asking the decoder thread for more input (see ``DecoderInputPump``).
enum InputPumpResult: Equatable {
    /// Bytes were handed to the decoder through ``AudioDecoder/feed(_:)``.
    case fed
    /// The input is complete: nothing more will come from this position.
    case ended
    /// A stop, or a seek once the format is known, is waiting: the decoder should return to
    /// the decode loop (``DecodeLoop``), which carries it out.
    case interrupted
    /// The input failed; the decode loop reports why once the decoder returns.
    case failed
}

/// The decoder thread's side of a decoder that reads its input itself.
///
/// libmpg123 is fed: the decode loop pushes bytes and asks for PCM. libavformat pulls: its
/// demuxers read, skip and seek as their containers require (an MP4's index after its media
/// data, an Ogg page search). Such a decoder calls back through this protocol from inside its
/// read, on the decoder thread, and is fed with the same code that feeds libmpg123, so
/// sniffing, skipping, HLS discontinuities and rebuffering behave the same for every format.
protocol DecoderInputPump: AnyObject {
    /// Waits until input bytes come and hands them to the decoder (through
    /// ``AudioDecoder/feed(_:)``), or until the input ends, fails, or a command interrupts.
    func pumpInput() -> InputPumpResult
    /// Makes the input go on from byte `offset` of the resource: a Range request where the
    /// server takes them, or reading forward (again from the start, for a byte behind).
    func repositionInput(to offset: Int)
    /// Whether repositioning is cheap: a file, or a server that answers Range requests.
    var inputIsSeekable: Bool { get }
    /// The size of the whole resource, when known.
    var inputLength: Int? { get }
}
