import Testing

@testable import LoopAnalysis

/// Every rule id a finding can carry has its rule, one only (or is one of the outcomes the commands report: a
/// file that cannot be read, an output not made), and every rule reports ids of the one enum.
@Suite struct RuleIDTests {
    static let outcomes: Set<RuleID> = [.unreadable, .fixFailed, .stitchFailed, .loopFailed]

    @Test func everyRuleIDHasItsRule() {
        let reported = Analyzer.rules.flatMap(\.ids)
        #expect(Set(reported).count == reported.count, "an id reported by two rules: \(reported)")
        let unclaimed = RuleID.allCases.filter { !Self.outcomes.contains($0) && !reported.contains($0) }
        #expect(unclaimed.isEmpty, "ids no rule reports: \(unclaimed)")
        #expect(reported.allSatisfy { !Self.outcomes.contains($0) })
        // What --disable and .loopprep.json may name: every rule's ids and unreadable.
        #expect(Set(Analyzer.allIDs) == Set(reported.map(\.rawValue) + ["unreadable"]))
    }
}
