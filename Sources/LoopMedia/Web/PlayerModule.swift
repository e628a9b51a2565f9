// Generated from loopprep-loop.js by scripts/embed-player.sh (Tools/embed-text): edit that file and run the script.
// swift-format-ignore-file
extension PlayerAssets {
    static let module = #"""
// loopprep-loop.js: a gapless loop through Media Source Extensions, from loopprep's exact figures.
// Written by `loopprep fix|stitch|loop --web-player`; no dependencies.
//
//   import { LoopPlayer } from "./loopprep-loop.js";
//   const manifest = await (await fetch("clip.web.json")).json();
//   await new LoopPlayer(document.querySelector("video"), manifest).start();
//
// Loop k is the same media appended with timestampOffset = k * length - origin and the append window
// [k * length, (k + 1) * length): every track's first presented frame or sample lands on k * length, and
// what the media holds outside one loop (AAC priming, the last packet's padding) falls outside the
// window, where the browser trims it. A source that holds several loops (`loops`) is appended at every
// `loops`-th loop, its window that many loops long; a source's `first` file, if any, is loop 0's append,
// placed `firstLead` earlier. `<video loop>` seeks back at every wrap and stalls; this does not.
// Without Media Source Extensions (or for a type it cannot play) the page falls back to `<video loop>`.

export class LoopPlayer {
  /**
   * @param {HTMLVideoElement} video
   * @param {object} manifest the `.web.json` loopprep wrote
   * @param {{baseURL?: string, loopsAhead?: number, loopsBehind?: number}} [options]
   */
  constructor(video, manifest, options = {}) {
    if (manifest.format !== "loopprep-web-loop" || manifest.version !== 1) {
      throw new Error("LoopPlayer: not a loopprep web-loop manifest (version 1)");
    }
    this.video = video;
    this.manifest = manifest;
    this.baseURL = options.baseURL ?? document.baseURI;
    this.loopsAhead = Math.max(2, options.loopsAhead ?? 3);
    this.loopsBehind = Math.max(1, options.loopsBehind ?? 1);
    /** Loops appended so far, and where played ones have been removed up to (seconds). */
    this.appended = 0;
    this.removedTo = 0;
    /** "mse", "managed-mse" or "fallback" once started. */
    this.mode = null;
    this.stopped = false;
    this._bytes = null;
    this._first = null;
    this._busy = false;
    this._timer = null;
  }

  /** The MediaSource constructor this browser has, if any (ManagedMediaSource first: Safari on iOS 17.1+). */
  static mediaSourceType() {
    return globalThis.ManagedMediaSource ?? globalThis.MediaSource ?? null;
  }

  /**
   * A name from the manifest (a file path relative to it) as a URL: each segment percent-encoded, so a clip
   * named `take #2?.mp4` is fetched as that file, not as `take` with a query and a fragment.
   * @param {string} name
   * @param {string} base
   */
  static resolve(name, base) {
    return new URL(String(name).split("/").map(encodeURIComponent).join("/"), base);
  }

  /** Whether this browser can loop `manifest` through Media Source Extensions. */
  static canLoop(manifest) {
    const type = LoopPlayer.mediaSourceType();
    return !!type && manifest.sources.every((source) => type.isTypeSupported(source.mime));
  }

  /**
   * Loop k's append: [timestampOffset, appendWindowStart, appendWindowEnd] in seconds. Browsers keep whole
   * microseconds and Chromium truncates the seconds it is given (3 x 0.48 - 1 is 0.43999999999999995 in
   * a double: 439999 us, and the loop's keyframe fell a microsecond before its window and the whole GOP
   * with it), Firefox rounds them to the nearest. So each figure is counted in microseconds from the
   * manifest's exact rationals and nudged a quarter of a microsecond away from zero, where truncation and
   * rounding both land on it (half a microsecond rounded away in Firefox: the first append, placed before
   * 0, came out 2 us apart from the second, and Firefox's Opus decoder restarted there), and the window is
   * a microsecond wider at each end for a frame whose own time was rounded (a microsecond of audio is a
   * twentieth of a sample).
   */
  static append(manifest, k, loops = 1, lead = "0") {
    const start = micros(manifest.length, k);
    const end = micros(manifest.length, k + loops);
    const origin = micros(manifest.origin, 1) + micros(lead, 1);
    return [seconds(start - origin), seconds(Math.max(start - 1, 0)), seconds(end + 1)];
  }

  async start() {
    if (!LoopPlayer.canLoop(this.manifest)) return this._fallback();
    const type = LoopPlayer.mediaSourceType();
    this.mode = type === globalThis.ManagedMediaSource ? "managed-mse" : "mse";
    // One SourceBuffer per file (a track each from an MP4): a track's trimming at the window never
    // touches another's frames.
    const fetchBytes = async (media) => {
      const response = await fetch(LoopPlayer.resolve(media, this.baseURL));
      if (!response.ok) throw new Error(`LoopPlayer: ${media}: HTTP ${response.status}`);
      return response.arrayBuffer();
    };
    this._bytes = await Promise.all(this.manifest.sources.map((source) => fetchBytes(source.media)));
    // A source's own first append (audio encoded over the loop repeated: a cold start there).
    this._first = await Promise.all(this.manifest.sources.map((source) =>
      source.first ? fetchBytes(source.first) : null));
    this.source = new type();
    if (this.mode === "managed-mse") this.video.disableRemotePlayback = true;
    const opened = once(this.source, "sourceopen");
    this.video.src = URL.createObjectURL(this.source);
    await opened;
    this.buffers = this.manifest.sources.map((source) => {
      const buffer = this.source.addSourceBuffer(source.mime);
      buffer.mode = "segments";
      return buffer;
    });
    this.source.duration = Infinity;
    for (let k = 0; k < this.loopsAhead; k++) await this._appendNext();
    this._timer = setInterval(() => this._keepUp(), 250);
    this.video.addEventListener("timeupdate", () => this._keepUp());
    await this.video.play().catch(() => {});
  }

  /** Stops feeding the buffer (the video plays out what it has). */
  stop() {
    this.stopped = true;
    if (this._timer !== null) clearInterval(this._timer);
  }

  /** Which loop is playing (from 0), by the playhead. */
  get loop() {
    return Math.floor(this.video.currentTime / this.manifest.lengthSeconds);
  }

  async _appendNext() {
    const k = this.appended;
    await Promise.all(this.buffers.map((buffer, i) => {
      // A file that holds several loops (audio encoded over the loop repeated, `loops` in the
      // manifest) is appended at every `loops`-th loop only.
      const source = this.manifest.sources[i];
      const loops = source.loops ?? 1;
      if (k % loops !== 0) return null;
      // The first append may take its own file, which holds a pre-roll before the loop (firstLead).
      const first = k === 0 && this._first[i] !== null;
      const [offset, start, end] = LoopPlayer.append(this.manifest, k, loops, first ? source.firstLead : "0");
      // The window's end moves first: its start may not reach the old end.
      buffer.appendWindowEnd = end;
      buffer.appendWindowStart = start;
      buffer.timestampOffset = offset;
      const done = once(buffer, "updateend");
      buffer.appendBuffer(first ? this._first[i] : this._bytes[i]);
      return done;
    }));
    this.appended += 1;
  }

  async _removePlayed() {
    // A microsecond short of the loop's start: its keyframe stays.
    const to = seconds(Math.max(micros(this.manifest.length, this.loop - this.loopsBehind) - 1, 0));
    if (to <= this.removedTo) return;
    await Promise.all(this.buffers.map((buffer) => {
      const done = once(buffer, "updateend");
      buffer.remove(this.removedTo, to);
      return done;
    }));
    this.removedTo = to;
  }

  async _keepUp() {
    if (this._busy || this.stopped || this.buffers.some((buffer) => buffer.updating)) return;
    this._busy = true;
    try {
      // Played loops go first, so a full buffer frees room before the next append.
      await this._removePlayed();
      if (this.appended < this.loop + 1 + this.loopsAhead) await this._appendNext();
    } catch (error) {
      // A full buffer (QuotaExceededError): play out what is buffered; the next call removes what was
      // played and tries again.
      if (error?.name !== "QuotaExceededError") throw error;
    } finally {
      this._busy = false;
    }
  }

  /** `<video loop>` on the file itself, where MSE cannot take it; a codec the browser cannot decode is said. */
  _fallback() {
    this.mode = "fallback";
    const undecodable = this.manifest.sources.map((source) => source.mime)
      .filter((mime) => this.video.canPlayType(mime) === "");
    if (undecodable.length > 0) {
      return Promise.reject(new Error(`this browser cannot decode ${undecodable.join(" and ")}: ` +
        "open the page in a browser that plays it (Safari for HEVC)"));
    }
    this.video.loop = true;
    this.video.src = LoopPlayer.resolve(this.manifest.fallback, this.baseURL).href;
    return this.video.play().catch(() => {});
  }
}

/** k times a rational ("n/d" or "n") of seconds, in whole microseconds, to the nearest. */
function micros(rational, k) {
  const [n, d = "1"] = String(rational).split("/");
  const num = BigInt(n) * BigInt(k) * 1000000n;
  const den = BigInt(d);
  const half = (x) => (2n * x + den) / (2n * den);
  return Number(num >= 0n ? half(num) : -half(-num));
}

/** Seconds that a browser truncating (Chromium) or rounding (Firefox) to whole microseconds reads as `us`. */
function seconds(us) {
  return (us + Math.sign(us) * 0.25) / 1e6;
}

function once(target, name) {
  return new Promise((resolve, reject) => {
    const ok = () => { target.removeEventListener("error", fail); resolve(); };
    const fail = () => {
      target.removeEventListener(name, ok);
      reject(new Error(`LoopPlayer: ${name} failed`));
    };
    target.addEventListener(name, ok, { once: true });
    target.addEventListener("error", fail, { once: true });
  });
}

"""#
}
