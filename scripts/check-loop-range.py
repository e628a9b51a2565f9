#!/usr/bin/env python3
"""Checks the loop-range contract on loopprep's output: `analyze --format json` (a report), or
`--format jsonl` / `--format ranges` (JSON Lines). For every clip with a range: start and duration are exact
rationals ("1/5", "1001/500", "2"), cmTime's value / timescale equals each exactly (32-bit timescale, 64-bit
value), microseconds are rounded inward (the start up, the end down), cures and remains are rule ids and share
none. A clip without one has `"loopRange": null` and a reason. Prints each problem; exits 1 on any.
Usage: scripts/check-loop-range.py [FILE]   (default: standard input)"""
import json
import math
import sys
from fractions import Fraction

RULES = {"audio-longer-than-video", "video-longer-than-audio", "start-offset", "priming-not-signalled",
         "first-frame-not-keyframe", "timestamp-gap", "moov-at-end", "too-short-to-loop", "not-playable-on-target",
         "seam-audio-click", "seam-visual-jump", "rotation", "empty-track", "movie-duration-mismatch",
         "irregular-audio-durations"}


def rational(text):
    num, _, den = text.partition("/")
    if not num.lstrip("-").isdigit() or (den and not den.isdigit()) or den == "0":
        raise ValueError(f"not an exact rational: {text!r}")
    return Fraction(int(num), int(den or 1))


def check(path, clip):
    problems = []
    if "loopRange" not in clip:
        return problems
    r = clip["loopRange"]
    if r is None:
        return [] if clip.get("loopRangeReason") else [f"{path}: loopRange is null without a reason"]
    try:
        start, duration = rational(r["start"]), rational(r["duration"])
    except (KeyError, ValueError) as e:
        return [f"{path}: {e}"]
    if duration <= 0:
        problems.append(f"{path}: duration {duration} is not positive")
    cm = r.get("cmTime")
    if cm is not None:
        for name, want in (("start", start), ("duration", duration)):
            t = cm[name]
            if not (0 < t["timescale"] < 2**31) or abs(t["value"]) >= 2**63:
                problems.append(f"{path}: cmTime.{name} {t} does not fit CMTime")
            elif Fraction(t["value"], t["timescale"]) != want:
                problems.append(f"{path}: cmTime.{name} {t} is not {want}")
    us = r["microseconds"]
    if us["start"] != math.ceil(start * 1_000_000) or us["end"] != math.floor((start + duration) * 1_000_000):
        problems.append(f"{path}: microseconds {us} are not [ceil(start), floor(end)] of {start}, {start + duration}")
    for name in ("cures", "remains"):
        unknown = set(r[name]) - RULES
        if unknown:
            problems.append(f"{path}: {name} has unknown rules {sorted(unknown)}")
    if set(r["cures"]) & set(r["remains"]):
        problems.append(f"{path}: a rule both cured and remaining: {sorted(set(r['cures']) & set(r['remains']))}")
    return problems


def main():
    text = open(sys.argv[1]).read() if len(sys.argv) > 1 else sys.stdin.read()
    try:
        clips = json.loads(text)["files"]
    except (json.JSONDecodeError, KeyError, TypeError):
        clips = [json.loads(line) for line in text.splitlines() if line.strip()]
        clips = [c.get("file", c) for c in clips if c.get("kind") != "summary"]
    problems = [p for c in clips for p in check(c.get("path", "?"), c)]
    ranges = sum(1 for c in clips if c.get("loopRange"))
    for p in problems:
        print(p)
    print(f"check-loop-range: {ranges} ranges in {len(clips)} clips, {len(problems)} problems")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
