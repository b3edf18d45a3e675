// swift-tools-version: 6.1
import Foundation
import PackageDescription

// The micro-benchmarks (Benchmarks/StreamPlayBenchmarks, ordo-one/benchmark) are part of the
// package when STREAMPLAY_BENCHMARKS=1, as scripts/bench.sh sets it: the benchmark package
// interposes malloc, which has no place in the sanitizer builds of the tests, and builds and
// tests need none of its dependencies.
let withBenchmarks = ProcessInfo.processInfo.environment["STREAMPLAY_BENCHMARKS"] == "1"

let package = Package(
    name: "StreamPlay",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "StreamPlay", targets: ["StreamPlay"]),
        .library(name: "StreamPlayServices", targets: ["StreamPlayServices"]),
        .library(name: "StreamPlayTesting", targets: ["StreamPlayTesting"]),
        .library(name: "StreamPlayMPRIS", targets: ["StreamPlayMPRIS"]),
        .executable(name: "streamplay", targets: ["streamplay"]),
        // The command itself, which the `streamplay` front end loads with dlopen() (from next to
        // the executable): `--version` starts without mapping the engine's ~30 shared libraries.
        .library(name: "StreamPlayCLI", type: .dynamic, targets: ["StreamPlayCLI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        // 4.x: imports FoundationEssentials where it can (3.x imports Foundation, which links
        // Foundation and ICU into every binary that uses Crypto); _CryptoExtras'
        // _RSA.Signing.PublicKey(n:e:), for the keys of a JWKS.
        .package(url: "https://github.com/apple/swift-crypto", from: "4.0.0"),
        // `swift package generate-documentation` for the DocC catalogs (no code of it is linked).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CMPG123",
            pkgConfig: "libmpg123",
            providers: [.apt(["libmpg123-dev"])]
        ),
        .systemLibrary(
            name: "CPulse",
            pkgConfig: "libpulse",
            providers: [.apt(["libpulse-dev"])]
        ),
        // libcurl: every HTTP request. Not linked: loaded with dlopen() at the first request, or
        // ahead of it (see Sources/CCurl/include/CCurl.h), so that the loader's work on its ~30
        // shared libraries can run beside a program's own start. A C target, not a system
        // library: pkg-config would link it. Its headers (libcurl4-openssl-dev) are on the
        // compiler's default path on Debian and Ubuntu.
        .target(
            name: "CCurl",
            linkerSettings: [.linkedLibrary("dl")]
        ),
        // AES-128 for encrypted HLS segments: libcrypto, which libcurl loads too.
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        // FFmpeg's libavformat, libavcodec, libavutil and libswresample: every format besides
        // MPEG audio. Not linked: loaded with dlopen() at the first stream that needs them
        // (see Sources/CFFmpeg/include/CFFmpeg.h), so a program that plays MP3 does not map
        // their ~130 shared libraries at start. A C target, not a system library: pkg-config
        // would link them. The headers (libavformat-dev, libavcodec-dev, libavutil-dev,
        // libswresample-dev) are on the compiler's default path on Debian and Ubuntu, where
        // pkg-config's include path for them is that same directory.
        .target(
            name: "CFFmpeg",
            linkerSettings: [.linkedLibrary("dl")]
        ),
        // The version, one #define for the library and for the C front end of `streamplay`.
        .target(name: "CStreamPlayVersion"),
        // Thread names, a thread-local flag and ThreadSanitizer's lock annotations.
        .target(name: "CStreamPlayShim"),
        .target(
            name: "StreamPlay",
            dependencies: [
                "CMPG123",
                "CFFmpeg",
                "CPulse",
                "CCurl",
                "COpenSSL",
                "CStreamPlayShim",
                "CStreamPlayVersion",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // OAuth 2, token storage, the SoundCloud, Spotify and Spark API clients and the stream
        // resolver, on the engine's HTTP client.
        .target(
            name: "StreamPlayServices",
            dependencies: [
                "StreamPlay",
                .product(name: "Crypto", package: "swift-crypto"),
                // RS256 signatures of OpenID Connect ID tokens (Spark's sign-in).
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // For tests of code that uses the services: an in-memory HTTPTransport, fakes of
        // SoundCloud, Spotify and Spark behind it, and a recording AudioSink.
        .target(
            name: "StreamPlayTesting",
            dependencies: ["StreamPlay", "StreamPlayServices",
                           // FakeSpark signs its ID tokens (RS256).
                           .product(name: "Crypto", package: "swift-crypto"),
                           .product(name: "_CryptoExtras", package: "swift-crypto")]
        ),
        // The `streamplay` executable: a C front end that prints the version by itself and
        // otherwise loads libStreamPlayCLI.so (dlopen, one entry point) and runs the command in it.
        .executableTarget(
            name: "streamplay",
            dependencies: ["CStreamPlayVersion"],
            // -nostartfiles: without swiftrt.o, which would pull a copy of the Swift runtime
            // into this C program (and initialise it at every start).
            linkerSettings: [.linkedLibrary("dl"), .unsafeFlags(["-nostartfiles"])]
        ),
        // The command (ArgumentParser) and everything it uses, as the dynamic library
        // StreamPlayCLI. In release builds the Swift runtime is linked into it (-static-stdlib),
        // so the process has one copy of the runtime, here, and needs no Swift toolchain.
        .target(
            name: "StreamPlayCLI",
            dependencies: [
                "StreamPlay",
                "StreamPlayServices",
                "StreamPlayMPRIS",
                "CStreamPlayShim",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            exclude: ["StreamPlayCLI.exports"],
            // Release builds make the library cheaper to load (issue 16's start-up and memory
            // targets) in two ways:
            // - StreamPlayCLI.exports keeps every symbol local but `streamplay_main`, the one
            //   entry the C front end looks up. So the library's references to its own symbols
            //   (its thousands of Swift symbols, the runtime's) are bound when it is linked, not
            //   looked up through every loaded library when the command starts, and it exports
            //   one symbol instead of about 11,700.
            // - -z pack-relative-relocs stores its ~52,000 relative relocations as DT_RELR
            //   (glibc 2.36 and later) in about 10 KB instead of 1.2 MB read at every start.
            //   gold, the default linker here, has no DT_RELR: hence lld (the toolchain's).
            linkerSettings: [
                .unsafeFlags([
                    "-static-stdlib", "-use-ld=lld",
                    "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs",
                    "-Xlinker", "--version-script=\(Context.packageDirectory)/Sources/StreamPlayCLI/StreamPlayCLI.exports",
                ], .when(configuration: .release)),
            ]
        ),
        // MPRIS 2 on the D-Bus session bus (sd-bus), for any player app and the CLI.
        .systemLibrary(
            name: "CSystemd",
            pkgConfig: "libsystemd",
            providers: [.apt(["libsystemd-dev"])]
        ),
        // The MPRIS object's sd-bus vtables (C macros) and the variadic sd-bus calls.
        .target(
            name: "CStreamPlayMPRISShim",
            dependencies: ["CSystemd"]
        ),
        .target(
            name: "StreamPlayMPRIS",
            dependencies: [
                "StreamPlay",
                "CSystemd",
                "CStreamPlayMPRISShim",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "StreamPlayMPRISUnitTests",
            dependencies: ["StreamPlay", "StreamPlayMPRIS"]
        ),
        // The comparison harness: StreamPlay against mpg123, mpv, ffplay and GStreamer
        // (run by scripts/bench.sh).
        .executableTarget(
            name: "streamplay-bench",
            dependencies: [
                "StreamPlay",
                "StreamPlayTesting",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Benchmarks/Harness"
        ),
        // Pure logic: no I/O, no servers, milliseconds. A plain `swift test` runs it anywhere.
        .testTarget(
            name: "StreamPlayUnitTests",
            dependencies: ["StreamPlay"]
        ),
        // A Player with its real input, decoder and queue, fed by StreamPlayTesting's
        // ScriptedMediaServer in place of the network (cuts, stalls, error statuses, lying
        // lengths) into a RecordingSink: no servers, a few seconds.
        .testTarget(
            name: "StreamPlayScriptedInputTests",
            dependencies: ["StreamPlay", "StreamPlayTesting"],
            resources: [.copy("Media")]
        ),
        // The wiring, against real servers (scripts/test.sh starts them). Suites that need them
        // are skipped with their reason when the servers' environment is absent, unless
        // STREAMPLAY_REQUIRE_SERVERS=1 (as in CI), where absent means failing.
        // The service clients against in-memory fakes of the services: no servers, milliseconds.
        .testTarget(
            name: "StreamPlayServicesUnitTests",
            dependencies: ["StreamPlay", "StreamPlayServices", "StreamPlayTesting",
                           // RSA keys made in the tests, to sign ID tokens.
                           .product(name: "_CryptoExtras", package: "swift-crypto")]
        ),
        .testTarget(
            name: "StreamPlayIntegrationTests",
            dependencies: ["StreamPlay", "StreamPlayServices", "StreamPlayTesting", "StreamPlayMPRIS"]
        ),
    ],
    swiftLanguageModes: [.v6]
)

if withBenchmarks {
    // Naming the trait turns off the package's other default trait, whose ARC interposer is
    // not needed here.
    package.dependencies.append(
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.0", traits: ["MallocInterposer"]))
    package.targets.append(
        .executableTarget(
            name: "StreamPlayBenchmarks",
            dependencies: [
                "StreamPlay",
                // FFmpegDecodeFloor calls FFmpeg directly, for the floor of the AAC figure.
                "CFFmpeg",
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/StreamPlayBenchmarks",
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "benchmark"),
            ]
        ))
}
