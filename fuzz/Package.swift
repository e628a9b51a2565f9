// swift-tools-version:6.0
// The fuzzing harness: its own package so the main build never sees a target without a `main`.
// Build and run it with scripts/fuzz.sh (libFuzzer + AddressSanitizer); not part of CI's default run.
import PackageDescription

let package = Package(
    name: "loopprep-fuzz",
    dependencies: [.package(name: "loopprep", path: "..")],
    targets: [
        .executableTarget(
            name: "LoopFuzz",
            dependencies: [.product(name: "LoopMedia", package: "loopprep"), .product(name: "LoopAnalysis", package: "loopprep")],
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        ),
    ]
)
