// swift-tools-version: 6.1
// An example player built on StreamPlay: a queue, its events, and MPRIS.
// Build it from the repository's root with
//   swift build --package-path Examples/QueuePlayer
import PackageDescription

let package = Package(
    name: "QueuePlayer",
    dependencies: [
        // In a player of your own: .package(url: "https://github.com/OWNER/StreamPlay", from: "0.x.y")
        .package(name: "StreamPlay", path: "../.."),
    ],
    targets: [
        .executableTarget(
            name: "queue-player",
            dependencies: [
                .product(name: "StreamPlay", package: "StreamPlay"),
                .product(name: "StreamPlayMPRIS", package: "StreamPlay"),
            ]
        ),
    ]
)
