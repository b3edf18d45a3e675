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
        isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1 && isForeground
    }

    /// Whether this process is in the terminal's foreground process group: its keys are ours.
    static var isForeground: Bool { tcgetpgrp(STDIN_FILENO) == getpgrp() }

    /// The terminal's settings before key mode; set once, before any signal handler reads it.
    nonisolated(unsafe) private static var saved: termios?

    /// Switches stdin to unbuffered, unechoed key reading.
    static func enableKeyMode() {
        var settings = termios()
        guard tcgetattr(STDIN_FILENO, &settings) == 0 else { return }
        saved = settings
        reapplyKeyMode()
    }

    /// Sets key mode again over the saved settings, in the foreground only: after a job that
    /// was stopped (Ctrl-Z) is continued with `fg`. In the background the terminal is the
    /// shell's, and stays as it is.
    static func reapplyKeyMode() {
        guard var settings = saved, isForeground else { return }
        settings.c_lflag &= ~tcflag_t(ICANON | ECHO)
        withUnsafeMutableBytes(of: &settings.c_cc) { bytes in
            bytes[Int(VMIN)] = 0
            bytes[Int(VTIME)] = 2 // read() returns after 0.2 s without a key, so the reader can stop
        }
        tcsetattr(STDIN_FILENO, TCSANOW, &settings)
    }

    /// Puts the terminal back as it was, in the foreground only: a job stopped with Ctrl-Z
    /// gave it back before it stopped, and a background process must not change the shell's.
    static func restore() {
        guard var settings = saved, isForeground else { return }
        tcsetattr(STDIN_FILENO, TCSANOW, &settings)
    }
}
