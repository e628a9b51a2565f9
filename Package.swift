// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "loopprep",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "loopprep", targets: ["loopprep"]),
        .library(name: "LoopAnalysis", targets: ["LoopAnalysis"]),
        .library(name: "LoopMedia", targets: ["LoopMedia"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        // FFmpeg 5.1's libraries through pkg-config; macro shims live in the umbrella header. libavfilter's headers
        // only: the library is loaded when a transition is first drawn (shim.h), not at every start.
        .systemLibrary(
            name: "CFFmpeg",
            pkgConfig: "libavformat libavcodec libavutil libswscale libswresample",
            providers: [.apt(["libavformat-dev", "libavcodec-dev", "libavfilter-dev",
                              "libavutil-dev", "libswscale-dev", "libswresample-dev", "pkg-config"])]
        ),
        // Pure Swift: exact time math, facts, rules, report model. Imports no C.
        .target(name: "LoopAnalysis"),
        // The only code that touches FFmpeg.
        .target(name: "LoopMedia", dependencies: ["CFFmpeg", "LoopAnalysis"]),
        .executableTarget(
            name: "loopprep",
            dependencies: [
                "LoopMedia", "LoopAnalysis",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(name: "LoopAnalysisTests", dependencies: ["LoopAnalysis"]),
        // Paths, scratch folders and a process runner shared by the two test targets that touch media.
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "LoopMediaTests", dependencies: ["LoopMedia", "LoopAnalysis", "TestSupport"]),
        .testTarget(name: "loopprepTests", dependencies: ["loopprep", "LoopAnalysis", "TestSupport"]),
    ]
)
