import StreamPlay
#if canImport(Glibc)
import Glibc
#endif

/// Opens a URL in the desktop's browser with xdg-open, where there is a desktop.
enum BrowserLauncher {
    /// Whether a browser can be opened here: a graphical session and xdg-open on the PATH.
    static var isAvailable: Bool {
        let hasDisplay = getenv("DISPLAY") != nil || getenv("WAYLAND_DISPLAY") != nil
        return hasDisplay && executableOnPath("xdg-open")
    }

    /// Starts `xdg-open URL` without waiting for it (a thread reaps it when it exits). Returns
    /// whether it started.
    @discardableResult
    static func open(_ url: String) -> Bool {
        var pid = pid_t()
        let arguments = ["xdg-open", url]
        var pointers = arguments.map { strdup($0) } + [nil]
        defer { for pointer in pointers { free(pointer) } }
        guard posix_spawnp(&pid, "xdg-open", nil, nil, &pointers, environ) == 0 else { return false }
        let child = pid
        EngineThread.detached(name: "sp-browser") {
            var status: Int32 = 0
            while waitpid(child, &status, 0) < 0 && errno == EINTR {}
        }
        return true
    }

    private static func executableOnPath(_ name: String) -> Bool {
        guard let path = getenv("PATH").map({ String(cString: $0) }) else { return false }
        return path.split(separator: ":").contains { access("\($0)/\(name)", X_OK) == 0 }
    }
}
