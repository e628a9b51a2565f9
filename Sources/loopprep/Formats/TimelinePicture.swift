import Foundation
import LoopAnalysis

/// The stitch timeline as a picture: one lane per clip (alternating, so overlaps show), transitions as hatched
/// overlaps with their lengths, a time axis in seconds. Inline SVG: self-contained, sharp at any size, and
/// coloured with the page's own light or dark variables.
enum TimelinePicture {
    /// Drawn 760 units wide: the page shows it at least that many pixels wide (scrolling sideways on a phone), so
    /// its 12-pixel labels never shrink below that.
    static let width = 760.0

    static func svg(_ t: StitchTimeline) -> String {
        let width = Self.width
        let lane = 34.0
        let top = 10.0
        let axis = 28.0
        let total = max(t.duration.doubleValue, 0.001)
        func x(_ seconds: Rational) -> Double { 10 + (width - 20) * seconds.doubleValue / total }
        let lanes = 2
        // Join labels under the lanes, in as many rows as keep them apart (close joins, the loop join's long one
        // at the right).
        let below = top + Double(lanes) * (lane + 8) + 10
        var joinLabels: [(text: String, x: Double, anchor: Anchor, wrap: Bool)] = []
        for join in t.joins {
            let wrap = t.isLoopJoin(join)
            guard join.frames > 0 || wrap else { continue }
            let length = "\(join.kind.rawValue) \(Figures.decimal(join.span.end - join.span.start, places: 3)) s"
            if wrap {
                // The loop's own join, at the end: the last clip back into the first (whose opening plays here).
                let first = fit((t.clips[0].path as NSString).lastPathComponent, 24)
                let text =
                    join.frames > 0
                    ? "\u{21BB} loop join: \(length) back into \(first)" : "\u{21BB} loop join: cut back to \(first)"
                joinLabels.append((text, width - 10, .end, true))
            } else {
                joinLabels.append((length, (x(join.span.start) + x(join.span.end)) / 2, .middle, false))
            }
        }
        let rows = Self.rows(joinLabels.map { ($0.x, Self.textWidth($0.text), $0.anchor) }, within: width)
        let joinRows = (rows.max() ?? -1) + 1
        let height = top + Double(lanes) * (lane + 8) + axis + 14 + Double(max(joinRows - 1, 0)) * 13
        var out =
            """
            <svg xmlns=\"http://www.w3.org/2000/svg\" class=\"timeline\" viewBox=\"0 0 \(Int(width)) \
            \(Int(height))\" role=\"img\" aria-label=\"stitch timeline\">\n
            """
        out +=
            """
            <defs><pattern id=\"hatch\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" \
            patternTransform=\"rotate(45)\"><rect width=\"3\" height=\"6\" class=\"hatch\"/></pattern></defs>\n
            """
        var labels = ""
        for (i, clip) in t.clips.enumerated() {
            let y = top + Double(i % lanes) * (lane + 8)
            let x0 = x(clip.span.start)
            let x1 = x(clip.span.end)
            out +=
                """
                <rect x=\"\(f(x0))\" y=\"\(f(y))\" width=\"\(f(max(x1 - x0, 1)))\" height=\"\(f(lane))\" rx=\"4\" \
                class=\"clip c\(i % 6)\"/>\n
                """
            // Labels go on top, centred on the part of the clip no transition covers, cut to fit it (the list
            // under the picture has every name whole).
            let covered = t.joins.filter { $0.frames > 0 && ($0.from == i || $0.to == i) }.map {
                (x($0.span.start), x($0.span.end))
            }
            let left = covered.filter { $0.0 <= x0 + 1 }.map(\.1).max() ?? x0
            let right = covered.filter { $0.1 >= x1 - 1 }.map(\.0).min() ?? x1
            let middle = right > left ? (left + right) / 2 : (x0 + x1) / 2
            let room = Int(max(right - left, x1 - x0) / 7)
            let name = fit((clip.path as NSString).lastPathComponent, room)
            let detail = fit(
                """
                \(Figures.decimal(clip.span.end - clip.span.start, places: 2)) s, \
                \(clip.span.endFrame - clip.span.startFrame) frames
                """,
                room)
            if !name.isEmpty {
                labels +=
                    """
                    <text x=\"\(f(middle))\" y=\"\(f(y + 15))\" class=\"label\" \
                    text-anchor=\"middle\">\(esc(name))</text>\n
                    """
            }
            if !detail.isEmpty {
                labels +=
                    """
                    <text x=\"\(f(middle))\" y=\"\(f(y + 28))\" class=\"label small-label\" \
                    text-anchor=\"middle\">\(esc(detail))</text>\n
                    """
            }
        }
        for join in t.joins {
            let wrap = t.isLoopJoin(join)
            guard join.frames > 0 || wrap else { continue }
            let x0 = x(join.span.start)
            let x1 = x(join.span.end)
            out +=
                """
                <rect x=\"\(f(min(x0, width - 12)))\" y=\"\(f(top))\" width=\"\(f(max(x1 - x0, 2)))\" \
                height=\"\(f(Double(lanes) * (lane + 8) - 8))\" fill=\"url(#hatch)\" \
                class=\"join\(wrap ? " wrap" : "")\"/>\n
                """
        }
        for (label, row) in zip(joinLabels, rows) {
            let (x0, _) = Self.extent(label.x, Self.textWidth(label.text), label.anchor, within: width)
            let kind = label.wrap ? "small wrap-label" : "small"
            out +=
                """
                <text x=\"\(f(x0))\" y=\"\(f(below + Double(row) * 13))\" class=\"\(kind)\" \
                text-anchor=\"start\">\(esc(label.text))</text>\n
                """
        }
        out += labels
        // Ticks at round times (a step of 1, 2 or 5 times a power of ten, ten ticks at most), each label kept
        // inside the picture (the first starts at its tick, the last ends at it).
        let y = height - 6
        let step = Self.tickStep(total)
        var k = 0.0
        while k * step <= total + 1e-9 {
            let seconds = k * step
            let text = Self.tickText(seconds, step: step)
            let at = 10 + (width - 20) * seconds / total
            let (x0, _) = Self.extent(at, Self.textWidth(text), .middle, within: width)
            out +=
                """
                <text x=\"\(f(x0))\" y=\"\(f(y))\" class=\"small tick\" text-anchor=\"start\">\(text)</text>\n
                """
            k += 1
        }
        return out + "</svg>\n"
    }

    enum Anchor { case start, middle, end }

    /// Width of an 11-pixel system-ui label: 0.62 em a character is wider than any common glyph but W and M.
    static func textWidth(_ text: String) -> Double { Double(text.count) * 11 * 0.62 }

    /// Where a label of `w` anchored at `x` starts and ends, moved inside [2, width - 2].
    static func extent(_ x: Double, _ w: Double, _ anchor: Anchor, within width: Double) -> (Double, Double) {
        var x0 =
            switch anchor {
            case .start: x
            case .middle: x - w / 2
            case .end: x - w
            }
        x0 = min(max(x0, 2), max(width - 2 - w, 2))
        return (x0, x0 + w)
    }

    /// A row for each label so that no two in a row overlap (first fit, in order of position).
    static func rows(_ labels: [(x: Double, w: Double, anchor: Anchor)], within width: Double) -> [Int] {
        let extents = labels.map { extent($0.x, $0.w, $0.anchor, within: width) }
        var rowEnds: [Double] = []
        var rows = Array(repeating: 0, count: labels.count)
        for i in extents.indices.sorted(by: { extents[$0].0 < extents[$1].0 }) {
            let (x0, x1) = extents[i]
            if let row = rowEnds.firstIndex(where: { $0 + 6 <= x0 }) {
                rows[i] = row
                rowEnds[row] = x1
            } else {
                rows[i] = rowEnds.count
                rowEnds.append(x1)
            }
        }
        return rows
    }

    /// 1, 2 or 5 times a power of ten: the smallest that gives at most ten steps.
    static func tickStep(_ total: Double) -> Double {
        var power = pow(10, floor(log10(max(total, 1e-3) / 10)))
        while true {
            for m in [1.0, 2, 5] where total / (m * power) <= 10 { return m * power }
            power *= 10
        }
    }

    static func tickText(_ seconds: Double, step: Double) -> String {
        let places = max(0, Int(-floor(log10(step) + 1e-9)))
        return String(format: "%.\(places)fs", seconds)
    }

    /// `text` in at most `room` characters, its end replaced by an ellipsis when cut; empty when under 3.
    static func fit(_ text: String, _ room: Int) -> String {
        if text.count <= room { return text }
        return room < 3 ? "" : String(text.prefix(room - 1)) + "\u{2026}"
    }

    static func f(_ v: Double) -> String { String(format: "%.1f", v) }
    static func esc(_ s: String) -> String { JUnitFormat.xml(s) }

    static let css = """
        svg.timeline { width: 100%; min-width: 760px; height: auto; background: var(--card); border: 1px solid \
        var(--line); border-radius: 8px; }
        svg.timeline .label { fill: #ffffff; font: 600 12px system-ui, sans-serif; paint-order: stroke; stroke: \
        rgba(0,0,0,.55); stroke-width: 3px; }
        svg.timeline .small-label { font-weight: 400; font-size: 11px; }
        svg.timeline .small { fill: var(--fg); font: 11px system-ui, sans-serif; }
        svg.timeline .c0 { fill: #3b6ea8; } svg.timeline .c1 { fill: #7b4fa0; } svg.timeline .c2 { fill: #2f8a6d; }
        svg.timeline .c3 { fill: #a8613b; } svg.timeline .c4 { fill: #8a7a2f; } svg.timeline .c5 { fill: #a03b5a; }
        svg.timeline .hatch { fill: var(--warning); } svg.timeline .join { stroke: var(--warning); stroke-width: 1; }
        svg.timeline .wrap-label { fill: var(--warning); font-weight: 700; }
        """
}
