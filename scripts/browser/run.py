#!/usr/bin/env python3
"""Plays loopprep's web-player output in headless Chromium or Firefox and measures it (scripts/test-browser.sh).

For each clip folder given (`NAME.web.json` beside `loopprep-loop.js`), serves the folder from 127.0.0.1 with
HTTP Range support (ranges counted), opens scripts/browser/measure.html over the DevTools protocol, once with the
player (Media Source Extensions) and once with `<video loop>` on the loop-ready file, and prints per mode: frames
presented per loop, the longest gap between consecutive presented frames, and the audio's 5 ms blocks more than
3 dB below the tone. Exits 1 when the player misses a frame, a gap is over 1.5 frame intervals, or the audio
drops; `<video loop>` is measured and printed beside it, not judged.

Usage: run.py BROWSER CASE_DIR:NAME [CASE_DIR:NAME ...]
       run.py --playability LOOPPREP BROWSER DIR
       run.py --pages BROWSER DIR:PAGE [DIR:PAGE ...]
       run.py --soak BROWSER DIR:NAME [SECONDS]
  BROWSER: the path of chromium (driven over the DevTools protocol) or firefox-esr (over WebDriver BiDi, no
  geckodriver). The second form: every clip in DIR through `loopprep analyze --target chrome|firefox`, and
  through a <video src> in the browser; a row per clip, and exit 1 where the verdict and the browser disagree.
  The third: each report page's "play loop" button plays its loop. The fourth: the player for SECONDS (60) of
  wall time, what it holds sampled: playback must keep up and memory stay flat, loop after loop.
"""

import asyncio
import http.server
import json
import math
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request

import websockets

HERE = os.path.dirname(os.path.abspath(__file__))
LOOPS = 5


class RangeHandler(http.server.SimpleHTTPRequestHandler):
    """Static files with single byte ranges (206), as a CDN serves media; counts what it sends."""

    sent = {"bytes": 0, "ranges": 0}
    extensions_map = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".js": "text/javascript",
        ".mjs": "text/javascript",
        ".mp4": "video/mp4",
        ".webm": "video/webm",
        ".json": "application/json",
        ".html": "text/html",
    }

    def log_message(self, *args):
        pass

    def send_head(self):
        path = self.translate_path(self.path)
        if not os.path.isfile(path):
            return super().send_head()
        size = os.path.getsize(path)
        spec = self.headers.get("Range")
        start, end = 0, size - 1
        if spec and spec.startswith("bytes="):
            first, _, last = spec[6:].partition("-")
            if first:
                start = int(first)
                end = min(int(last), size - 1) if last else size - 1
            else:
                start = max(size - int(last), 0)
            if start > end:
                self.send_error(416)
                return None
            self.send_response(206)
            self.send_header("Content-Range", f"bytes {start}-{end}/{size}")
            RangeHandler.sent["ranges"] += 1
        else:
            self.send_response(200)
        self.send_header("Content-Type", self.guess_type(path))
        self.send_header("Accept-Ranges", "bytes")
        self.send_header("Content-Length", str(end - start + 1))
        self.end_headers()
        f = open(path, "rb")
        f.seek(start)
        self._remaining = end - start + 1
        return f

    def copyfile(self, source, outputfile):
        left = getattr(self, "_remaining", None)
        while left is None or left > 0:
            chunk = source.read(65536 if left is None else min(65536, left))
            if not chunk:
                break
            outputfile.write(chunk)
            RangeHandler.sent["bytes"] += len(chunk)
            if left is not None:
                left -= len(chunk)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve(folder):
    handler = lambda *a, **k: RangeHandler(*a, directory=folder, **k)  # noqa: E731
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


class Browser:
    """One headless browser and one page in it: navigate, evaluate an expression (its value back, by value)."""

    def __init__(self, path):
        self.path = path
        self.firefox = "firefox" in os.path.basename(path)
        self.name = "Firefox" if self.firefox else "Chromium"
        self.target = "firefox" if self.firefox else "chrome"
        self.profile = tempfile.mkdtemp(prefix="loopprep-browser-")
        self.port = free_port()
        self.ids = iter(range(1, 1 << 30))
        self.ws = None
        self.context = None

    async def __aenter__(self):
        if self.firefox:
            # Autoplay with sound, no first-run pages; the Remote Agent speaks WebDriver BiDi on the port.
            with open(os.path.join(self.profile, "user.js"), "w") as prefs:
                for key, value in [("media.autoplay.default", 0), ("media.autoplay.blocking_policy", 0),
                                   ("media.autoplay.block-webaudio", False),
                                   ("browser.shell.checkDefaultBrowser", False), ("datareporting.policy.dataSubmissionEnabled", False),
                                   ("toolkit.telemetry.reportingpolicy.firstRun", False), ("browser.aboutwelcome.enabled", False)]:
                    prefs.write(f"user_pref({json.dumps(key)}, {json.dumps(value)});\n")
            args = [self.path, "--headless", "--no-remote", "--profile", self.profile,
                    f"--remote-debugging-port={self.port}", "about:blank"]
        else:
            args = [self.path, "--headless=new", "--no-sandbox", "--no-first-run", "--disable-gpu",
                    "--autoplay-policy=no-user-gesture-required", f"--remote-debugging-port={self.port}",
                    f"--user-data-dir={self.profile}", "about:blank"]
        self.process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(150):
            try:
                if self.firefox:
                    self.ws = await websockets.connect(f"ws://127.0.0.1:{self.port}/session", max_size=None)
                else:
                    pages = json.load(urllib.request.urlopen(f"http://127.0.0.1:{self.port}/json/list"))
                    url = next(p["webSocketDebuggerUrl"] for p in pages if p.get("type") == "page")
                    self.ws = await websockets.connect(url, max_size=None)
                break
            except Exception:
                await asyncio.sleep(0.2)
        else:
            self.process.kill()
            raise RuntimeError(f"{self.name} did not open its remote port")
        if self.firefox:
            await self.call("session.new", capabilities={})
            tree = await self.call("browsingContext.getTree")
            self.context = tree["contexts"][0]["context"]
        else:
            await self.call("Runtime.enable")
            await self.call("Page.enable")
        return self

    async def __aexit__(self, *exc):
        try:
            if self.firefox:
                await self.call("session.end")
            await self.ws.close()
        except Exception:
            pass
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
        shutil.rmtree(self.profile, ignore_errors=True)

    async def call(self, method, **params):
        i = next(self.ids)
        await self.ws.send(json.dumps({"id": i, "method": method, "params": params}))
        while True:
            message = json.loads(await self.ws.recv())
            if message.get("id") == i:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']} {message.get('message', '')}")
                return message.get("result", {})

    async def navigate(self, url):
        if self.firefox:
            await self.call("browsingContext.navigate", context=self.context, url=url, wait="complete")
            # A click gives the page the user activation Firefox wants before audio starts (after its module
            # has run to its listeners).
            await asyncio.sleep(0.5)
            await self.call("input.performActions", context=self.context, actions=[{
                "type": "pointer", "id": "mouse", "actions": [
                    {"type": "pointerMove", "x": 5, "y": 5}, {"type": "pointerDown", "button": 0},
                    {"type": "pointerUp", "button": 0}]}])
        else:
            await self.call("Page.navigate", url=url)
            await asyncio.sleep(0.5)

    async def evaluate(self, expression):
        """The expression's value: JSON-encoded in the page and decoded here, so both protocols agree."""
        wrapped = f"JSON.stringify({expression})"
        if self.firefox:
            got = await self.call("script.evaluate", expression=wrapped, target={"context": self.context},
                                  awaitPromise=False, resultOwnership="none")
            value = got.get("result", {}).get("value")
        else:
            got = await self.call("Runtime.evaluate", expression=wrapped, returnByValue=True)
            value = got.get("result", {}).get("value")
        return json.loads(value) if isinstance(value, str) else None


async def measure(browser, url, timeout):
    await browser.navigate(url)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while loop.time() < deadline:
        await asyncio.sleep(0.5)
        value = await browser.evaluate("window.result ?? null")
        if value:
            return value
    raise RuntimeError(f"no result from {url} in {timeout} s")


async def support(browser, origin, mime):
    await browser.navigate(origin)
    return bool(await browser.evaluate(
        f"(self.ManagedMediaSource ?? self.MediaSource)?.isTypeSupported({json.dumps(mime)}) ?? false"))


def unseen_between(a, b):
    """Frames the compositor presented between two callbacks without calling back (0 where it cannot say)."""
    if a.get("presented") is None or b.get("presented") is None:
        return 0
    return max(0, b["presented"] - a["presented"] - 1)


def analyse(result, manifest):
    length = manifest["lengthSeconds"]
    per_loop = next((t["frames"] for t in manifest["tracks"] if t["kind"] == "video"), None)
    interval = length / per_loop if per_loop else None
    frames = result["frames"]
    counts = {}
    # A frame's loop, by its media time half a frame on: browsers keep microseconds, so a loop's first frame at
    # 30000/1001 fps may read a microsecond before k * length.
    half = (interval or 0) / 2

    def loop_of(f):
        return math.floor((f["mediaTime"] + half) / length)

    # A loaded machine's main thread misses a requestVideoFrameCallback now and then while the compositor still
    # presents the frame: presentedFrames (the compositor's own count) steps by 2 or more. Those frames were shown
    # and are counted, in the loop their media time (one interval on from the last seen) falls in; a frame the
    # player never presented leaves presentedFrames unmoved and stays missing.
    missed = 0
    if result["mode"] == "mse":
        for i, f in enumerate(frames):
            k = loop_of(f)
            counts[k] = counts.get(k, 0) + 1
            unseen = unseen_between(frames[i - 1], f) if i > 0 else 0
            missed += unseen
            for j in range(1, unseen + 1):
                m = loop_of({"mediaTime": frames[i - 1]["mediaTime"] + j * (interval or 0)})
                counts[m] = counts.get(m, 0) + 1
    else:
        k = 0
        for i, f in enumerate(frames):
            unseen = unseen_between(frames[i - 1], f) if i > 0 else 0
            missed += unseen
            if i > 0 and f["mediaTime"] < frames[i - 1]["mediaTime"]:
                # Across the seek back: the frames before this one's media time belong to the new loop.
                ahead = min(unseen, round(f["mediaTime"] / interval)) if interval else 0
                counts[k] = counts.get(k, 0) + unseen - ahead
                k += 1
                counts[k] = counts.get(k, 0) + ahead
            else:
                counts[k] = counts.get(k, 0) + unseen
            counts[k] = counts.get(k, 0) + 1
    full = [counts.get(k, 0) for k in range(result["wraps"])]
    # Between two callbacks, the display time per presented frame (a missed callback is not a held frame).
    gaps = [(b["display"] - a["display"]) / (1 + unseen_between(a, b)) for a, b in zip(frames, frames[1:])]
    longest = max(gaps) if gaps else None
    # The gaps across each wrap (the last frame of one loop to the first of the next): the seam itself.
    if result["mode"] == "mse":
        wrap = [loop_of(b) != loop_of(a) for a, b in zip(frames, frames[1:])]
    else:
        wrap = [b["mediaTime"] < a["mediaTime"] for a, b in zip(frames, frames[1:])]
    at_wraps = [g for g, w in zip(gaps, wrap) if w]
    # The longest gap inside the loops (the first, the start-up, left out): where a headless browser misses
    # refreshes anywhere, a wrap is judged against it.
    inside = [g for i, (g, w) in enumerate(zip(gaps, wrap)) if not w and i > 0]
    # The tone's level: the median block once playing; a drop is a block more than 3 dB below it.
    playing = [b for b in result["blocks"] if b["time"] > 0.25]
    levels = sorted(b["rms"] for b in playing)
    reference = levels[len(levels) // 2] if levels else 0
    drops = [b for b in playing if reference > 0 and (b["rms"] <= 0 or 20 * math.log10(b["rms"] / reference) < -3)]
    # A click: a second difference over a tenth of the tone's amplitude (a 500 Hz tone at 48 kHz keeps it under
    # 0.0043 of its amplitude; a step in phase of 6 degrees or more passes a tenth).
    steps = sorted(b.get("step", 0) for b in playing)
    clicks = [b for b in playing if reference > 0 and b.get("step", 0) > 0.1 * reference * math.sqrt(2)]
    return {
        "framesPerLoop": full,
        "missedCallbacks": missed,
        "expectedPerLoop": per_loop,
        "longestGapMs": round(longest, 1) if longest is not None else None,
        "wrapGapsMs": [round(g, 1) for g in at_wraps],
        "longestInsideMs": round(max(inside), 1) if inside else None,
        "frameIntervalMs": round(interval * 1000, 1) if interval else None,
        "audioBlocks": len(playing),
        "toneDbfs": round(20 * math.log10(reference), 1) if reference > 0 else None,
        "audioDropBlocks": len(drops),
        "audioDropsAt": sorted({round(b["time"], 2) for b in drops})[:12],
        "clickBlocks": len(clicks),
        "clicksAt": sorted({round(b["time"], 2) for b in clicks})[:12],
        "typicalStep": round(steps[len(steps) // 2] / (reference * math.sqrt(2)), 4) if reference > 0 else None,
        "audioError": result.get("audioError"),
        "hasAudio": any(t["kind"] == "audio" for t in manifest["tracks"]),
        # Vorbis (and Opus whose loop is no whole number of frames) appended as it was encoded, from a cold start.
        "coldStartAudio": any(t["codec"] in ("opus", "vorbis") and not t.get("loopContinuous")
                              for t in manifest["tracks"]),
        "mse": result.get("mse"),
        # What the browser still holds at the end: played loops removed, a few ahead (memory stays flat).
        "stalls": result.get("stalls") or [],
        "holes": result.get("holes") or [],
        "dropped": result.get("dropped"),
        "bufferedSeconds": round(sum(end - start for start, end in result.get("buffered", [])), 3),
        "bufferedLoops": round(sum(end - start for start, end in result.get("buffered", [])) / length, 2),
    }


def machine_dropped(stats, counts):
    """Whether the frames missing from the loops are the loaded machine's, not the player's: the player fed every
    frame (no stall, no hole in the buffered ranges ahead of the playhead) and the browser itself counts at least as
    many frames dropped by its compositor as are missing."""
    expected = stats["expectedPerLoop"]
    missing = sum(max(expected - n, 0) for n in counts)
    extra = any(n > expected for n in counts)
    return (not extra and missing > 0 and not stats["stalls"] and not stats["holes"]
            and stats["dropped"] is not None and stats["dropped"] >= missing)


def judge(name, stats, firefox=False):
    problems = []
    # The first loop's first frame is painted when the media loads, before playback starts and before any
    # requestVideoFrameCallback can see it: loop 0 may count one frame fewer. Every wrap after it counts all.
    counts = list(stats["framesPerLoop"])
    if counts and stats["expectedPerLoop"] and counts[0] == stats["expectedPerLoop"] - 1:
        counts[0] += 1
    # Headless Firefox on a small machine drops frames anywhere in a loop (its dropped-frame count says so) and
    # skips callbacks: there the seam is judged by the gaps across the wraps only, the counts printed. Elsewhere a
    # shortfall the browser's own dropped-frame count accounts for, with every frame fed, is the machine's: said,
    # and the row is played again (a player that starves the element still fails).
    if stats["expectedPerLoop"] and any(n != stats["expectedPerLoop"] for n in counts) and not firefox:
        if machine_dropped(stats, counts):
            stats["machine"] = True
            print(f"{name}: MACHINE: frames per loop {stats['framesPerLoop']} of {stats['expectedPerLoop']}: "
                  f"{stats['dropped']} dropped by the loaded compositor, every frame fed (no stall, no buffered hole)")
        else:
            problems.append(f"frames per loop {stats['framesPerLoop']}, expected {stats['expectedPerLoop']} each"
                            + (f"; the element waited for data at {stats['stalls'][:5]}" if stats["stalls"] else "")
                            + (f"; holes in the buffered ranges {stats['holes'][:5]}" if stats["holes"] else ""))
    if len(stats["framesPerLoop"]) < 4:
        problems.append(f"only {len(stats['framesPerLoop'])} loops played")
    # The seam is judged at the wraps; elsewhere a gap is the display's cadence (a 30 fps frame held a third
    # refresh on a 60 Hz display now and then, in `<video loop>` too), printed beside it.
    # Headless Firefox on this 2-core machine misses refreshes anywhere in a loop (80 ms gaps mid-loop): there a
    # wrap may be no longer than the longest gap inside the loops.
    allowed = stats["frameIntervalMs"] and 1.5 * stats["frameIntervalMs"]
    if firefox and allowed and stats["longestInsideMs"]:
        # Both are whole display refreshes (16.7 ms at 60 Hz) give or take the callbacks' jitter: half a refresh.
        allowed = max(allowed, stats["longestInsideMs"] + 8.3)
    if allowed and any(g > allowed for g in stats["wrapGapsMs"]):
        problems.append(f"gaps of {stats['wrapGapsMs']} ms across the wraps (frame interval {stats['frameIntervalMs']} ms, "
                        f"longest inside the loops {stats['longestInsideMs']} ms)")
    # The player keeps 3 loops ahead and 1 behind (LoopPlayer's defaults), the playing one, and for a moment at a
    # wrap the next one appended before the oldest is removed: 6 at most. More means played loops stay, and an
    # hour would grow without bound.
    if stats["mse"] and stats["bufferedLoops"] > 6.01:
        problems.append(f"{stats['bufferedLoops']} loops still buffered at the end (at most 6: played ones must go)")
    if stats["audioError"]:
        problems.append(f"audio not measured: {stats['audioError']}")
    elif stats["hasAudio"] and (stats["toneDbfs"] is None or stats["toneDbfs"] < -40):
        problems.append(f"no tone reached WebAudio (level {stats['toneDbfs']} dBFS)")
    elif stats["audioDropBlocks"] and stats["coldStartAudio"]:
        # Opus and Vorbis packets at a loop's start were encoded from a cold start; decoded right after the loop's
        # end they ring for about 15 ms (docs/web-player.md): printed as known, not yet fixed.
        print(f"{name}: KNOWN: {stats['audioDropBlocks']} audio blocks 3 dB down at the wraps: the Opus/Vorbis "
              "restart (docs/web-player.md)")
    elif stats["audioDropBlocks"]:
        problems.append(f"{stats['audioDropBlocks']} audio blocks of 5 ms more than 3 dB below the tone at {stats['audioDropsAt']}")
    # Clicks are printed, not judged: headless Chromium's audio renderer nudges its clock now and then wherever the
    # playhead is (seen away from any wrap, and in `<video loop>` too).
    return problems


def verdict(loopprep, path, target):
    """loopprep's word on the browser: plays (no finding), caveat (warnings only) or refuses (an error)."""
    run = subprocess.run([loopprep, "analyze", "--no-seam", "--target", target, "--format", "json", path],
                         capture_output=True, text=True)
    report = json.loads(run.stdout)
    findings = [f for f in report["files"][0].get("findings", []) if f["rule"] == "not-playable-on-target"]
    if any(f["severity"] == "error" for f in findings):
        return "refuses", findings
    return ("caveat" if findings else "plays"), findings


async def playability(loopprep, path, folder):
    shutil.copy(os.path.join(HERE, "playable.html"), os.path.join(folder, "playable.html"))
    server = serve(folder)
    base = f"http://127.0.0.1:{server.server_address[1]}/playable.html"
    clips = sorted(c for c in os.listdir(folder) if not c.endswith(".html"))
    disagreements = 0
    async with Browser(path) as browser:
        for clip in clips:
            word, findings = verdict(loopprep, os.path.join(folder, clip), browser.target)
            got = await measure(browser, f"{base}?src={clip}", timeout=20)
            plays = got["videoWidth"] > 0 and got["frames"] >= 5 and not got["error"]
            caveat = "; ".join(f["message"] for f in findings if f["severity"] == "warning")
            errors = [f["message"] for f in findings if f["severity"] == "error"]
            # A refusal of the audio alone (PCM in MOV in Firefox) means a picture with no sound.
            audio_only = bool(errors) and all(m.startswith("audio track") for m in errors)
            if word == "plays":
                agrees = plays
            elif word == "refuses" and audio_only:
                agrees = plays and got.get("hasAudio") is False
            elif word == "refuses":
                agrees = not plays
            else:
                # A caveat: MOV plays from src (it must play here); HEVC plays with the machine's decoder (either).
                agrees = plays or "hardware" in caveat
            disagreements += not agrees
            print(f"{clip}: loopprep --target {browser.target}: {word}; {browser.name}: "
                  f"{'plays' if plays else 'does not play the picture'} (videoWidth {got['videoWidth']}, "
                  f"{got['frames']} frames, sound {got.get('hasAudio')}{', ' + got['error'] if got['error'] else ''})"
                  + ("" if agrees else "  DISAGREE"))
    server.shutdown()
    print(f"playability: loopprep and {browser.name} agree on {len(clips) - disagreements} of {len(clips)} clips")
    return 1 if disagreements else 0


async def pages(path, folder_pages):
    """Each FOLDER:PAGE: every "play loop" button on the page plays its loop (past a 2 s loop's end in 4 s) and
    stops on a second press; opened from a file, the page (a report's, or a web player's own) says how to serve it."""
    failures = 0
    async with Browser(path) as browser:
        for item in folder_pages:
            folder, page = item.rsplit(":", 1)
            server = serve(folder)
            await browser.navigate(f"http://127.0.0.1:{server.server_address[1]}/{urllib.parse.quote(page)}")
            await asyncio.sleep(1)
            buttons = await browser.evaluate(
                "(() => { const b = [...document.querySelectorAll('button.play-loop')]; b.forEach((x) => x.click());"
                " return b.length; })()")
            await asyncio.sleep(4)
            got = await browser.evaluate(
                "[...document.querySelectorAll('video.loop')].map((v) =>"
                " ({ hidden: v.hidden, width: v.videoWidth, time: v.currentTime, paused: v.paused }))")
            # A second press stops it: the video hidden again, the button back to "play loop".
            stopped = await browser.evaluate(
                "(() => { const b = [...document.querySelectorAll('button.play-loop')]; b.forEach((x) => x.click());"
                " return b.map((x) => x.textContent); })()")
            await asyncio.sleep(0.5)
            hidden = await browser.evaluate("[...document.querySelectorAll('video.loop')].map((v) => v.hidden)")
            server.shutdown()
            # A web player's own page (no button) is checked from a file only.
            for n, video in enumerate((got or [{}]) if buttons else []):
                plays = bool(video) and not video.get("hidden") and video.get("width", 0) > 0 \
                    and video.get("time", 0) > 2 and not video.get("paused")
                print(f"{item}: play loop button {n + 1} of {buttons} in {browser.name}: "
                      f"{'plays' if plays else 'FAIL: does not play'} ({video})")
                failures += not plays
            if buttons:
                stops = all(hidden or [False]) and all(t == "play loop" for t in (stopped or ["?"]))
                print(f"{item}: pressed again, {'stops' if stops else 'FAIL: does not stop'} "
                      f"({stopped}, hidden {hidden})")
                failures += not stops
            # Opened from a file, the page says how to serve the folder (it failed silently).
            await browser.navigate("file://" + urllib.parse.quote(os.path.abspath(os.path.join(folder, page))))
            await asyncio.sleep(0.5)
            said = await browser.evaluate(
                "(() => { const b = document.querySelector('button.play-loop');"
                " if (!b) { const p = document.getElementById('served'); return p && !p.hidden ? p.textContent : ''; }"
                " b.click(); const w = document.querySelector('p.warn'); return w ? w.textContent : ''; })()")
            told = "python3 -m http.server" in (said or "")
            print(f"{item}: opened from a file, {'says how to serve it' if told else 'FAIL: says nothing'} ({said!r})")
            failures += not told
    return 1 if failures else 0


async def players(path, cases):
    failures = 0
    async with Browser(path) as browser:
        for case in cases:
            folder, name = case.rsplit(":", 1)
            shutil.copy(os.path.join(HERE, "measure.html"), os.path.join(folder, "measure.html"))
            manifest = json.load(open(os.path.join(folder, name + ".web.json")))
            server = serve(folder)
            origin = f"http://127.0.0.1:{server.server_address[1]}/"
            # Past the first append of a source that holds several loops (Opus encoded over the loop repeated),
            # so a second one is met too.
            loops = max(LOOPS, max(source.get("loops", 1) for source in manifest["sources"]) + 2)
            # A clip's name may hold '#', '?' or spaces: the query carries it encoded.
            base = f"{origin}measure.html?manifest={urllib.parse.quote(name + '.web.json')}&loops={loops}"
            mimes = [source["mime"] for source in manifest["sources"]]
            supported = [await support(browser, origin, mime) for mime in mimes]
            problems = []
            if not all(supported):
                print(f"{name}: skipped: this {browser.name} cannot play {' and '.join(mimes)} through MSE")
                server.shutdown()
                continue
            # The player is judged; a run that fails is played once more and the second run decides (a browser
            # on a loaded 2-core machine misses a refresh now and then: both runs are printed).
            again = False
            for mode, attempt in [("mse", 1), ("mse", 2), ("loop", 1)]:
                if mode == "mse" and attempt == 2 and not problems and not again:
                    continue
                RangeHandler.sent.update(bytes=0, ranges=0)
                result = await measure(browser, f"{base}&mode={mode}", timeout=(loops + 8) * manifest["lengthSeconds"] + 20)
                if os.environ.get("LOOPPREP_BROWSER_DUMP"):
                    json.dump(result, open(os.path.join(os.environ["LOOPPREP_BROWSER_DUMP"], f"{name}-{mode}.json"), "w"))
                stats = analyse(result, manifest)
                label = "player (MSE)" if mode == "mse" else "<video loop>"
                print(f"{name}: {browser.name} {label}{' (again)' if attempt == 2 else ''}: frames per loop "
                      f"{stats['framesPerLoop']} of {stats['expectedPerLoop']}, "
                      f"gaps across the wraps {stats['wrapGapsMs']} ms, longest anywhere {stats['longestGapMs']} ms "
                      f"(frame {stats['frameIntervalMs']} ms), "
                      f"tone {stats['toneDbfs']} dBFS, 5 ms blocks 3 dB down {stats['audioDropBlocks']} of {stats['audioBlocks']}"
                      + (f" at {stats['audioDropsAt']}" if stats["audioDropBlocks"] else "")
                      + f", clicks {stats['clickBlocks']}" + (f" at {stats['clicksAt']}" if stats["clickBlocks"] else "")
                      + f", {result.get('dropped')} frames dropped by the browser"
                      + (f", {stats['missedCallbacks']} presented without a callback" if stats["missedCallbacks"] else "")
                      + (f", {stats['bufferedLoops']} loops buffered at the end" if mode == "mse" else "")
                      + f"; served {RangeHandler.sent['bytes']} bytes, {RangeHandler.sent['ranges']} ranges")
                if mode == "mse":
                    problems = judge(name, stats, firefox=browser.firefox)
                    # Frames the machine dropped: the row is played again, for the figures, never failed for them.
                    again = attempt == 1 and bool(stats.get("machine"))
                    for p in problems:
                        print(f"{name}: {'FAIL' if attempt == 2 else 'failed once'} in {browser.name}: {p}")
                    if attempt == 2 or not problems:
                        failures += bool(problems)
            server.shutdown()
    return 1 if failures else 0


async def soak(path, case, seconds):
    """The player for `seconds` of wall time: what it holds must stay flat however many loops it plays."""
    folder, name = case.rsplit(":", 1)
    shutil.copy(os.path.join(HERE, "soak.html"), os.path.join(folder, "soak.html"))
    server = serve(folder)
    async with Browser(path) as browser:
        manifest = urllib.parse.quote(name + ".web.json")
        got = await measure(
            browser, f"http://127.0.0.1:{server.server_address[1]}/soak.html?manifest={manifest}&seconds={seconds}",
            timeout=int(seconds) + 30)
    server.shutdown()
    samples = got["samples"]
    # After the first loops, what is buffered is at most 6 loops at any sample (3 ahead, 1 behind, the playing
    # one, and the next appended before the oldest goes).
    held = [s["buffered"] / got["length"] for s in samples if s["time"] > 4 * got["length"]]
    most = max(held) if held else None
    played = got["loops"]
    print(f"{name}: {browser.name} soak: {played} loops played in {seconds} s "
          f"({round(played * got['length'] / 60, 1)} minutes of loop), at most {round(most, 2) if most else most} "
          f"loops buffered after the first four, {samples[-1]['appended']} appended, removed to "
          f"{round(samples[-1]['removedTo'], 3)} s")
    problems = [f"page error: {e}" for e in got.get("errors", [])[:3]]
    if os.environ.get("LOOPPREP_BROWSER_DUMP"):
        print(json.dumps({k: got.get(k) for k in ("ranges", "element", "readyState", "paused", "currentTime")}))
    # Played in real time, less the start-up (page, fetch, the first appends: a few seconds).
    if played * got["length"] < 0.7 * float(seconds):
        problems.append(f"only {played} loops played: playback stalled")
    if most is None or most > 6.01:
        problems.append(f"{most} loops buffered (at most 6)")
    for p in problems:
        print(f"{name}: FAIL in soak: {p}")
    return 1 if problems else 0


def main():
    if sys.argv[1] == "--soak":
        sys.exit(asyncio.run(soak(sys.argv[2], sys.argv[3], sys.argv[4] if len(sys.argv) > 4 else "60")))
    if sys.argv[1] == "--playability":
        sys.exit(asyncio.run(playability(*sys.argv[2:5])))
    if sys.argv[1] == "--pages":
        sys.exit(asyncio.run(pages(sys.argv[2], sys.argv[3:])))
    sys.exit(asyncio.run(players(sys.argv[1], sys.argv[2:])))


if __name__ == "__main__":
    main()
