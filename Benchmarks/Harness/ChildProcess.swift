import Foundation
import Glibc

/// A program started with posix_spawn: the start time is taken right before the spawn, and the
/// exit comes with the kernel's resource usage (CPU time, peak resident memory).
///
/// Not thread-safe: one thread at a time drives a child (hence `@unchecked Sendable`).
final class ChildProcess: @unchecked Sendable {
    let pid: pid_t
    let command: [String]
    private(set) var exit: Exit?

    /// How a child ended, with the CPU time it used.
    struct Exit {
        let status: Int32
        let cpuSeconds: Double
    }

    /// Starts `command` (looked up in PATH) with `environment` added to this process's own;
    /// stdin is /dev/null, stdout and stderr go to `logPath` (or /dev/null), or stdout to
    /// `stdoutDescriptor` and stderr to /dev/null.
    init(_ command: [String], environment: [String: String] = [:], logPath: String? = nil,
         stdoutDescriptor: Int32? = nil) throws {
        self.command = command
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        if let stdoutDescriptor {
            posix_spawn_file_actions_adddup2(&actions, stdoutDescriptor, 1)
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        } else {
            let log = logPath ?? "/dev/null"
            posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_APPEND, 0o644)
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        }

        var merged: [String: String] = [:]
        var index = 0
        while let entry = environ[index] {
            let text = String(cString: entry)
            if let equals = text.firstIndex(of: "=") {
                merged[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            index += 1
        }
        merged.merge(environment) { _, new in new }

        let argv = command.map { strdup($0) } + [nil]
        let envp = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var child: pid_t = 0
        let result = posix_spawnp(&child, command[0], &actions, nil, argv, envp)
        guard result == 0 else {
            throw HarnessError("cannot start \(command[0]): \(String(cString: strerror(result)))")
        }
        pid = child
    }

    deinit {
        if exit == nil { _ = terminate(grace: 1) }
    }

    /// CPU seconds (user + system, all threads) used so far, from /proc; clock-tick resolution.
    var cpuSecondsSoFar: Double? {
        guard exit == nil, let stat = ProcFile.read("/proc/\(pid)/stat"),
              let close = stat.lastIndex(of: ")") else { return nil }
        // Fields after the command name; utime and stime are fields 14 and 15 of the line.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// The peak resident memory of the live child in KiB (VmHWM). The kernel's maxrss at exit
    /// would not do: Linux carries it over from the parent through fork and exec.
    var peakResidentKiB: Int? {
        guard exit == nil else { return nil }
        return ProcFile.statusField("VmHWM", of: String(pid))
    }

    /// Whether the child has exited (reaps it if so).
    var hasExited: Bool {
        if exit != nil { return true }
        return reap(options: WNOHANG)
    }

    /// Waits up to `timeout` seconds for the child to exit by itself. It looks every 0.1 ms
    /// for the first 50 ms (a command that only prints its version exits within a few), then
    /// every 5 ms: a spawn-to-exit time is never more than 0.1 ms late.
    @discardableResult
    func wait(timeout: Double) -> Bool {
        let start = MonotonicClock.now()
        let deadline = start + timeout
        while !hasExited {
            let now = MonotonicClock.now()
            if now >= deadline { return false }
            MonotonicClock.sleep(now - start < 0.05 ? 0.0001 : 0.005)
        }
        return true
    }

    /// SIGTERM, then SIGKILL after `grace` seconds; returns the exit record.
    @discardableResult
    func terminate(grace: Double = 2) -> Exit? {
        if hasExited { return exit }
        kill(pid, SIGTERM)
        if !wait(timeout: grace) {
            kill(pid, SIGKILL)
            _ = reap(options: 0)
        }
        return exit
    }

    private func reap(options: Int32) -> Bool {
        var status: Int32 = 0
        var usage = rusage()
        let result = wait4(pid, &status, options, &usage)
        guard result == pid else { return false }
        let cpu = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) * 1e-6
            + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) * 1e-6
        exit = Exit(status: status, cpuSeconds: cpu)
        return true
    }
}

extension ChildProcess {
    /// A command that ran to its end: how it ended (with its CPU time) and what it printed.
    struct Finished {
        let exit: Exit
        /// Its stdout and stderr, interleaved as written.
        let output: String

        var lines: [Substring] { output.split(separator: "\n") }
    }

    /// Runs `command` to its end, stdout and stderr to a temporary file read back after the
    /// exit. Nil when it could not start or did not end within `timeout` seconds (then it is
    /// stopped). The harness's one way of running a command through: its own children (decode,
    /// memory growth, scale), GNU time, and version queries.
    static func runToEnd(_ command: [String], environment: [String: String] = [:], timeout: Double) -> Finished? {
        let log = FileManager.default.temporaryDirectory
            .appendingPathComponent("bench-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).txt").path
        defer { unlink(log) }
        guard let child = try? ChildProcess(command, environment: environment, logPath: log) else { return nil }
        guard child.wait(timeout: timeout), let exit = child.exit else {
            child.terminate()
            return nil
        }
        return Finished(exit: exit, output: (try? String(contentsOfFile: log, encoding: .utf8)) ?? "")
    }
}

/// Small text files of /proc.
enum ProcFile {
    static func read(_ path: String) -> String? {
        guard let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var text = ""
        var buffer = [CChar](repeating: 0, count: 4096)
        while fgets(&buffer, Int32(buffer.count), file) != nil {
            text += String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        return text
    }

    /// Resident memory of this process in KiB (VmRSS).
    static func residentKiB() -> Int? { statusField("VmRSS", of: "self") }

    /// A "NAME: VALUE kB" field of /proc/PID/status.
    static func statusField(_ name: String, of pid: String) -> Int? {
        guard let status = read("/proc/\(pid)/status") else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix(name + ":") {
            return Int(line.split(separator: " ", omittingEmptySubsequences: true)[1])
        }
        return nil
    }
}
