import Dispatch
import Foundation
import LoopMedia

/// Runs blocking per-file work on `jobs` threads. FFmpeg calls block, so they stay off Swift's cooperative
/// pool (two threads here); results come back in input order whatever order the work finishes in.
enum Batch {
    static func run<R: Sendable>(
        _ items: [Inputs.Item], jobs: Int, label: String,
        _ work: @Sendable @escaping (Inputs.Item) -> R
    ) -> [R] {
        let progress = Progress(total: items.count, label: label)
        let results = InOrder.map(items.count, workers: jobs) { index in
            let result = work(items[index])
            progress.advance(items[index].path)
            return result
        }
        progress.finish()
        return results
    }
}

/// A one-line progress bar on stderr, only when stderr is a terminal.
final class Progress: Sendable {
    private let total: Int
    private let label: String
    private let done = Locked(0)
    private let enabled: Bool

    init(total: Int, label: String) {
        self.total = total
        self.label = label
        enabled = Console.stderrIsTTY && total > 1
    }

    private let shown = Locked(false)

    func advance(_ path: String) {
        let n = done.withLock {
            $0 += 1
            return $0
        }
        guard enabled else { return }
        shown.withLock { $0 = true }
        Console.stderr("\r\u{1B}[2K" + Self.line(label, n, total, path, columns: Self.columns()))
    }

    /// For work that knows its own count (stitch's parts).
    func show(_ done: Int, of total: Int, _ what: String) {
        guard Console.stderrIsTTY else { return }
        shown.withLock { $0 = true }
        Console.stderr("\r\u{1B}[2K" + Self.line(label, done, total, what, columns: Self.columns()))
    }

    /// Clears the line, whatever drew it.
    func finish() {
        if shown.withLock({ $0 }) { Console.stderr("\r\u{1B}[2K") }
    }

    /// `label [####----] n/total name`, fitted to `columns` (the bar shrinks, then the name is cut from its
    /// front), so a narrow terminal never wraps it.
    static func line(_ label: String, _ n: Int, _ total: Int, _ name: String, columns: Int) -> String {
        let count = " \(n)/\(total) "
        let room = max(columns - 1, 10)
        let bar = max(0, min(24, room - label.count - count.count - 3 - 8))
        let filled = bar * n / max(total, 1)
        var line =
            label
            + (bar > 0
                ? " [" + String(repeating: "#", count: filled) + String(repeating: "-", count: bar - filled) + "]" : "")
            + count
        let left = room - line.count
        if left > 1 { line += name.count > left ? "…" + name.suffix(left - 1) : name }
        return String(line.prefix(room))
    }

    /// The terminal's width (80 when it does not say).
    static func columns() -> Int {
        var size = winsize()
        guard ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
        return Int(size.ws_col)
    }
}

/// One line saying what a long single task is doing (a 20-minute clip's loop search), redrawn at most ten times a
/// second, on a terminal only (the caller makes one only there).
final class Activity: Sendable {
    private let last = Locked<(text: String, phase: String, at: UInt64)?>(nil)

    /// `phase`: a new one (decoding, then comparing) is shown at once.
    func show(_ text: String, phase: String = "") {
        let now = DispatchTime.now().uptimeNanoseconds
        let due = last.withLock { previous -> Bool in
            guard
                previous.map({ $0.phase != phase || ($0.text != text && now - $0.at >= 100_000_000) }) ?? true
            else { return false }
            previous = (text, phase, now)
            return true
        }
        if due { Console.stderr("\r\u{1B}[2K" + String(text.prefix(Progress.columns() - 1))) }
    }

    func finish() {
        if last.withLock({ $0 != nil }) { Console.stderr("\r\u{1B}[2K") }
    }

    /// The loop search's report for `path`: "searching NAME: decoding 42%".
    func reporter(for path: String) -> @Sendable (String, Double) -> Void {
        let name = (path as NSString).lastPathComponent
        return { [self] what, done in show("searching \(name): \(what) \(Int(done * 100))%", phase: what) }
    }
}
