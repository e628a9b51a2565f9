// swift-tools-version:6.0
// An app's view of loopprep (issue 44): a package that depends on the LoopRange product alone. It builds no C
// target, needs no FFmpeg header and runs none of loopprep's plugins; SwiftPM still fetches swift-argument-parser,
// which loopprep's own command line uses, but does not build it here.
import PackageDescription

let package = Package(
    name: "LoopRangeMeasure",
    platforms: [.macOS(.v13), .iOS(.v15), .tvOS(.v15)],
    dependencies: [
        // In an app: .package(url: "https://github.com/loopprep/loopprep", from: "1.0.0")
        .package(name: "loopprep", path: "../..")
    ],
    targets: [
        .executableTarget(name: "looprange", dependencies: [.product(name: "LoopRange", package: "loopprep")])
    ]
)
