#!/usr/bin/env python3
"""Records clips the way a web page does: scripts/browser/record.html in headless Chromium (MediaRecorder over a
canvas's captureStream(30) and a WebAudio oscillator), each recording POSTed to a server on 127.0.0.1 and saved.

Usage: record.py CHROMIUM OUTDIR NAME:MIME[:SLICE[:PAUSE[:MS[:CHANNELS]]]] ...
  NAME   the file saved in OUTDIR (rec-vp8-opus.webm)
  MIME   MediaRecorder's mimeType (video/webm;codecs=vp8,opus); ';' is fine, ':' is not used by any
  SLICE  start(timeslice) in ms, or - for start() alone
  PAUSE  ms to pause at the middle and resume (0: none)
  MS     how long to record (3000); CHANNELS the sound's (2)
A mimeType the browser does not take is said and passed over (exit 0); any other failure exits 1.
The clock is real: recording again gives other bytes (frame and packet times as this machine's load made them).
"""

import asyncio
import http.server
import os
import sys
import threading
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from run import Browser  # noqa: E402  (the one CDP client the browser tests use)


def server(outdir):
    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *a, **k):
            super().__init__(*a, directory=HERE, **k)

        def log_message(self, *args):
            pass

        def do_POST(self):
            name = os.path.basename(urllib.parse.unquote(self.path.removeprefix("/save/")))
            body = self.rfile.read(int(self.headers["Content-Length"]))
            with open(os.path.join(outdir, name), "wb") as f:
                f.write(body)
            self.send_response(200)
            self.end_headers()

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd


async def record(chromium, outdir, specs):
    httpd = server(outdir)
    origin = f"http://127.0.0.1:{httpd.server_address[1]}"
    failed = 0
    async with Browser(chromium) as browser:
        for spec in specs:
            name, mime, *rest = spec.split(":")
            query = {"name": name, "mime": mime, "ms": "3000"}
            if rest and rest[0] != "-":
                query["slice"] = rest[0]
            if len(rest) > 1 and rest[1] != "0":
                query["pause"] = rest[1]
            if len(rest) > 2:
                query["ms"] = rest[2]
            if len(rest) > 3:
                query["ch"] = rest[3]
            await browser.navigate(f"{origin}/record.html?{urllib.parse.urlencode(query)}")
            result = None
            for _ in range(120):  # the page records for 3 s; a page that never answers is a failure, said below
                await asyncio.sleep(0.25)
                result = await browser.evaluate("window.result ?? null")
                if result:
                    break
            if not result:
                print(f"{name}: the page gave no result", file=sys.stderr)
                failed = 1
            elif "error" in result:
                print(f"{name}: {result['error']} (passed over)", file=sys.stderr)
            else:
                print(f"{name}: {result['bytes']} bytes, {result['mime']}")
    httpd.shutdown()
    return failed


if __name__ == "__main__":
    sys.exit(asyncio.run(record(sys.argv[1], sys.argv[2], sys.argv[3:])))
