import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Facts about, and changes to, the controlling terminal.
enum Terminal {
    /// `true` when both stdin and stdout are terminals and this process is in the terminal's
    /// foreground: keys and the progress line make sense. A command started in the background
    /// (`streamplay song.mp3 &`) plays in plain mode: setting the terminal's modes or reading
    /// its keys would stop it (SIGTTOU, SIGTTIN), as job control does to a background job.
    static var isInteractive: Bool {
        isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1 && tcgetpgrp(STDIN_FILENO) == getpgrp()
    }

    nonisolated(unsafe) private static var saved: termios?

    /// Switches stdin to unbuffered, unechoed key reading.
    static func enableKeyMode() {
        var settings = termios()
        guard tcgetattr(STDIN_FILENO, &settings) == 0 else { return }
        saved = settings
        settings.c_lflag &= ~tcflag_t(ICANON | ECHO)
        withUnsafeMutableBytes(of: &settings.c_cc) { bytes in
            bytes[Int(VMIN)] = 0
            bytes[Int(VTIME)] = 2 // read() returns after 0.2 s without a key, so the reader can stop
        }
        tcsetattr(STDIN_FILENO, TCSANOW, &settings)
    }

    /// Puts the terminal back as it was.
    static func restore() {
        guard var settings = saved else { return }
        tcsetattr(STDIN_FILENO, TCSANOW, &settings)
    }
}
