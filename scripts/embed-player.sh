#!/usr/bin/env bash
# Builds the web player's module (Sources/LoopMedia/Web/loopprep-loop.js) into LoopMedia as PlayerAssets.module:
# the text travels inside the binary, so a loopprep copied alone still writes the player. The generated Swift file
# is committed (no build plugin, so a package depending on the LoopRange library builds nothing of this);
# WebPackageTests holds it to the JavaScript file, so a change to one without the other fails the tests.
set -euo pipefail
cd "$(dirname "$0")/.."
swift run -q embed-text Sources/LoopMedia/Web/loopprep-loop.js Sources/LoopMedia/Web/PlayerModule.swift PlayerAssets module
