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
        // FFmpeg's headers (Debian's -dev packages put them on the compiler's own search path; check-ffmpeg.sh
        // points it at another version's) with the macro shims in the umbrella header. Nothing is linked: every
        // FFmpeg function is a stub in CFFmpegLoader that loads the libraries when first called.
        .systemLibrary(
            name: "CFFmpeg",
            providers: [.apt(["libavformat-dev", "libavcodec-dev", "libavfilter-dev",
                              "libavutil-dev", "libswscale-dev", "libswresample-dev"])]
        ),
        // The stubs (x86_64 and aarch64) and the loader behind them.
        .target(name: "CFFmpegLoader"),
        // Pure Swift: exact time math, facts, rules, report model. Imports no C.
        .target(name: "LoopAnalysis"),
        // The only code that touches FFmpeg.
        .target(name: "LoopMedia", dependencies: ["CFFmpeg", "CFFmpegLoader", "LoopAnalysis"]),
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
