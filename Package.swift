// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "StreamPlay",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "StreamPlay", targets: ["StreamPlay"]),
        .executable(name: "streamplay", targets: ["streamplay"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
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
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        // curl_easy_setopt and curl_easy_getinfo are variadic: Swift cannot call them.
        .target(
            name: "CStreamPlayShim",
            dependencies: ["CCurl"]
        ),
        .target(
            name: "StreamPlay",
            dependencies: [
                "CMPG123",
                "CPulse",
                "CCurl",
                "CStreamPlayShim",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "streamplay",
            dependencies: [
                "StreamPlay",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(
            name: "StreamPlayTests",
            dependencies: ["StreamPlay"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
