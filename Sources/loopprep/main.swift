import LoopMedia
import LoopAnalysis
import Foundation
FFmpegLog.silence()
let enc = JSONEncoder(); enc.outputFormatting = [.prettyPrinted, .sortedKeys]
for p in CommandLine.arguments.dropFirst() {
  do { let f = try Probe.facts(path: p); print(p); for t in f.tracks { print("  \(t.index) \(t.kind) \(t.codec) \(t.profile ?? "-") start=\(t.startSeconds) dur=\(t.durationSeconds) frames=\(t.frameCount ?? -1) samples=\(t.sampleCount?.description ?? "-") key=\(t.firstFrameIsKeyframe.map{"\($0)"} ?? "-") prim=\(t.priming.map{"\($0.signalled) \($0.samples ?? -1)"} ?? "-") fps=\(t.frameRate?.description ?? "-") rot=\(t.rotation ?? 0) breaks=\(t.timingBreakCount) edits=\(t.edits.map{"\($0)"} ?? "nil")") }; print("  moovFirst=\(f.moovBeforeMdat.map{"\($0)"} ?? "-") container=\(f.container)"); for x in Analyzer.findings(in: f) { print("    [\(x.severity)] \(x.rule): \(x.message)") } }
  catch { print("\(p): \(error)") }
}
for p in CommandLine.arguments.dropFirst() {
  if let (f, i) = try? Probe.facts(opening: p) { do { let s = try SeamProbe.measure(i, facts: f); print(p, s) } catch { print(p, error) } }
}
