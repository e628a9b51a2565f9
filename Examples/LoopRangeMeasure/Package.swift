// swift-tools-version:6.1
// An app's view of loopprep: a package that depends on the LoopRange product alone, without loopprep's default
// trait (its command line): SwiftPM builds no C target, needs no FFmpeg header, runs no plugin and fetches nothing
// else (not swift-argument-parser). A clone is named by its folder ("../.." is this repository's, whatever its folder
// is called, so the name is given); an app writes `.package(url: "https://github.com/loopprep/loopprep", from:
// "1.0.0", traits: [])` and `package: "loopprep"`.
import PackageDescription

let package = Package(
    name: "LoopRangeMeasure",
    platforms: [.macOS(.v13), .iOS(.v15), .tvOS(.v15)],
    dependencies: [
        // In an app: .package(url: "https://github.com/loopprep/loopprep", from: "1.0.0", traits: [])
        .package(name: "loopprep", path: "../..", traits: [])
    ],
    targets: [
        .executableTarget(name: "looprange", dependencies: [.product(name: "LoopRange", package: "loopprep")])
    ]
)
