#!/usr/bin/env python3
"""Tidies the man page swift-argument-parser writes so mandoc -Tlint has nothing to say, and gives it the
sections the generator cannot: EXIT STATUS (loopprep's table), EXAMPLES and SEE ALSO (docs/man/sections.mdoc).
Usage: scripts/man-tidy.py PAGE SECTIONS > OUT"""
import re
import sys

page, sections = open(sys.argv[1]).read().split("\n"), open(sys.argv[2]).read().rstrip("\n")
out = []
skipping = False
i = 0
while i < len(page):
    line = page[i]
    # The root command's exit-code lines (its --help shows them) are the EXIT STATUS section here.
    if line.startswith("Exit codes (every command):"):
        skipping = True
    if skipping:
        if line.strip() == "":
            skipping = False
        i += 1
        continue
    if line == '.Sh "EXIT STATUS"':
        # The generator's `.Ex -std` (and anything to the end) gives way to loopprep's own sections.
        out.append(sections)
        break
    if line.strip() == "":
        # A blank line in running text is a paragraph break; none before a list item or a section.
        following = page[i + 1] if i + 1 < len(page) else ""
        if out and not out[-1].startswith(".") and not re.match(r"\.(It|Bl|El|Sh|Pp)\b", following):
            out.append(".Pp")
        i += 1
        continue
    if line == ".Pp" and i + 1 < len(page) and re.match(r"\.(It|El|Sh)\b", page[i + 1]):
        i += 1
        continue
    if not line.startswith("."):
        # One sentence a line (mdoc's rule: the formatter then spaces sentences itself).
        line = re.sub(r"(?<=[a-z0-9)\]\"'][.!?]) +(?=[A-Z(])", "\n", line.lstrip())
    out.append(line)
    i += 1
sys.stdout.write("\n".join(out) + "\n")
