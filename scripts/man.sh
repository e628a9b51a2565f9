#!/usr/bin/env bash
# Regenerates docs/man/loopprep.1 from the commands' own help (swift-argument-parser's GenerateManual plugin),
# tidied for mdoc (scripts/man-tidy.py: a sentence a line, paragraphs, no warning from mandoc -Tlint) with the
# sections the generator cannot write (docs/man/sections.mdoc: EXIT STATUS, EXAMPLES, SEE ALSO).
set -euo pipefail
cd "$(dirname "$0")/.."
swift package generate-manual >/dev/null
mkdir -p docs/man
python3 scripts/man-tidy.py .build/plugins/GenerateManual/outputs/loopprep/loopprep.1 docs/man/sections.mdoc \
  > docs/man/loopprep.1
if command -v mandoc >/dev/null; then mandoc -Tlint -Wwarning docs/man/loopprep.1; fi
echo "docs/man/loopprep.1"
