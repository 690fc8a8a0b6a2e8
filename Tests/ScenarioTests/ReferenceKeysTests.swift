import Foundation
@testable import Scenario
import Signals
import Testing

/// Issue 16, item 11: the reference (`docs/scenarios.md`) and the loader name the same keys.
/// Every key of `ScenarioKeys` is shown in use in one of the reference's examples, which
/// `DocumentedExamplesTests` loads, so a key the loader does not take cannot be shown either; the
/// modifier table and the generator sections list exactly what the loader takes.
@Suite struct ReferenceKeysTests {
    static let text = (try? String(contentsOf: DocumentedExamplesTests.reference, encoding: .utf8)) ?? ""

    /// `key:` used as a key somewhere in an example: at a line's start, or after `{`, `,` or `- `.
    static func isShown(_ key: String) -> Bool {
        let pattern = try! Regex("(^|[\\s{,-])\(key):")
        return DocumentedExamplesTests.examples.contains { $0.text.contains(pattern) }
    }

    @Test func everyKeyTheLoaderTakesIsShownInAnExample() {
        #expect(!Self.text.isEmpty)
        #expect(!Self.isShown("ackTimeoutt") && !Self.isShown("keep"), "a key is matched whole")
        for mapping in ScenarioKeys.all {
            for key in mapping.keys {
                #expect(Self.isShown(key), "'\(key)' of \(mapping.path) is in no example of docs/scenarios.md")
            }
        }
    }

    /// The rows of the table under `heading`: the first cell of each, its backticked words.
    static func tableKeys(after heading: String) -> [String] {
        guard let start = text.range(of: heading) else { return [] }
        var keys: [String] = []
        var inTable = false
        for line in text[start.upperBound...].split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("|") {
                inTable = true
                let cell = line.split(separator: "|").first ?? ""
                keys += cell.matches(of: try! Regex("`([^`]+)`")).compactMap { $0.output[1].substring.map(String.init) }
            } else if inTable {
                break
            }
        }
        return keys
    }

    @Test func theModifierTableListsEveryModifier() {
        #expect(Set(Self.tableKeys(after: "| modifier | meaning |")) == Set(ScenarioKeys.modifiers.keys))
    }

    @Test func everyGeneratorHasASectionAndEverySectionIsAGenerator() {
        let generators = Self.text.range(of: "\n## Generators\n").map { Self.text[$0.upperBound...] } ?? ""
        #expect(!generators.isEmpty)
        let sections = generators.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("### `"), line.hasSuffix("`") else { return nil }
            return String(line.dropFirst(5).dropLast())
        }
        #expect(Set(sections) == Set(Generators.keys), "the `### `name`` sections of docs/scenarios.md")
    }

    @Test func everyFaultHasItsExample() {
        for kind in ScenarioKeys.faults.keys {
            #expect(Self.isShown(kind), "fault '\(kind)'")
        }
    }
}
