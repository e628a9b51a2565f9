// swift-tools-version:6.0
import PackageDescription

// A Mac (not built or run on the Linux machines this is developed on: .github/workflows/macos.yml builds and tests
// it): Homebrew's FFmpeg (`brew install ffmpeg`), under /opt/homebrew (Apple silicon) or /usr/local (Intel).
let homebrewIncludes = ["-I/opt/homebrew/include", "-I/usr/local/include"]
let ffmpegLibraries = ["avformat", "avcodec", "avfilter", "avutil", "swscale", "swresample"]

let package = Package(
    name: "loopprep",
    // macOS 13, iOS 15, tvOS 15: what an app deploying the LoopRange library may need (issue 44); nothing here needs
    // newer (Locked, on NSLock, rather than Synchronization's Mutex of macOS 15 and iOS 18).
    platforms: [.macOS(.v13), .iOS(.v15), .tvOS(.v15)],
    products: [
        .executable(name: "loopprep", targets: ["loopprep"]),
        .library(name: "LoopAnalysis", targets: ["LoopAnalysis"]),
        .library(name: "LoopMedia", targets: ["LoopMedia"]),
        // For apps: analyze's loop range as Codable values (and a CMTimeRange / AVPlayerLooper where AVFoundation
        // is). Pure Swift and Foundation: builds for iOS, tvOS, macOS and Linux.
        .library(name: "LoopRange", targets: ["LoopRange"]),
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
            providers: [
                .apt(["libavformat-dev", "libavcodec-dev", "libavfilter-dev",
                      "libavutil-dev", "libswscale-dev", "libswresample-dev"]),
                .brew(["ffmpeg"]),
            ]
        ),
        // Linux: the stubs (x86_64 and aarch64 ELF) and the loader behind them. A Mac links FFmpeg the ordinary
        // way (Homebrew's, below): there the loader only answers for the linked libraries.
        .target(name: "CFFmpegLoader", cSettings: [.unsafeFlags(homebrewIncludes, .when(platforms: [.macOS]))]),
        // Pure Swift and Foundation, no C: the loop range an app passes its player.
        .target(name: "LoopRange"),
        // Pure Swift: exact time math, facts, rules, report model. Imports no C.
        .target(name: "LoopAnalysis", dependencies: ["LoopRange"]),
        // The only code that touches FFmpeg.
        // The web player's JavaScript (Web/loopprep-loop.js) is built in by the EmbedPlayer plugin.
        .target(
            name: "LoopMedia", dependencies: ["CFFmpeg", "CFFmpegLoader", "LoopAnalysis"],
            exclude: ["Web/loopprep-loop.js"],
            swiftSettings: [.unsafeFlags(homebrewIncludes.flatMap { ["-Xcc", $0] }, .when(platforms: [.macOS]))],
            linkerSettings: ffmpegLibraries.map { .linkedLibrary($0, .when(platforms: [.macOS])) }
                + [.unsafeFlags(["-L/opt/homebrew/lib", "-L/usr/local/lib"], .when(platforms: [.macOS]))],
            plugins: ["EmbedPlayer"]
        ),
        .executableTarget(name: "embed-text", path: "Tools/embed-text"),
        .plugin(name: "EmbedPlayer", capability: .buildTool(), dependencies: ["embed-text"]),
        .executableTarget(
            name: "loopprep",
            dependencies: [
                "LoopMedia", "LoopAnalysis", "LoopRange",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(name: "LoopAnalysisTests", dependencies: ["LoopAnalysis", "LoopRange"]),
        // Paths, scratch folders and a process runner shared by the two test targets that touch media.
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "LoopMediaTests", dependencies: ["LoopMedia", "LoopAnalysis", "TestSupport"]),
        .testTarget(name: "loopprepTests", dependencies: ["loopprep", "LoopAnalysis", "LoopRange", "TestSupport"]),
    ]
)
