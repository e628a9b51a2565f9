#!/usr/bin/env bash
# Regenerates docs/man/loopprep.1 from the commands' own help (swift-argument-parser's GenerateManual plugin).
set -euo pipefail
cd "$(dirname "$0")/.."
swift package generate-manual >/dev/null
mkdir -p docs/man
cp .build/plugins/GenerateManual/outputs/loopprep/loopprep.1 docs/man/loopprep.1
echo "docs/man/loopprep.1"
