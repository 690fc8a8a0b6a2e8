import Foundation
import Scenario
import Testing

/// Every example in `docs/scenarios.md` (and `docs/recordings.md`) loads, so the reference cannot drift from the loader.
/// A block fenced as ```yaml is a whole scenario; one fenced as ```yaml fields holds entries of a
/// payload's `fields:` and is checked inside a minimal scenario.
@Suite struct DocumentedExamplesTests {
    struct Example: CustomTestStringConvertible, Sendable {
        var document = "scenarios.md"
        let line: Int
        let isFields: Bool
        let text: String
        var testDescription: String { "docs/\(document):\(line)" }
    }

    static let reference = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/scenarios.md")

    /// `docs/recordings.md`, whose replay examples are scenarios too.
    static let recordings = reference.deletingLastPathComponent().appendingPathComponent("recordings.md")

    static var examples: [Example] { examples(in: reference) + examples(in: recordings) }

    static func examples(in document: URL) -> [Example] {
        guard let text = try? String(contentsOf: document, encoding: .utf8) else { return [] }
        var examples: [Example] = []
        var current: (line: Int, isFields: Bool, lines: [String])?
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if let open = current {
                if trimmed == "```" {
                    examples.append(
                        Example(
                            document: document.lastPathComponent, line: open.line, isFields: open.isFields,
                            text: open.lines.joined(separator: "\n")))
                    current = nil
                } else {
                    current?.lines.append(String(line))
                }
            } else if trimmed == "```yaml" || trimmed == "```yaml fields" {
                current = (number + 2, trimmed.hasSuffix("fields"), [])
            }
        }
        return examples
    }

    @Test func theReferenceHasExamples() {
        #expect(Self.examples.count >= 10)
    }

    @Test(arguments: examples)
    func exampleLoads(_ example: Example) throws {
        let text: String
        if example.isFields {
            let indented = example.text.split(separator: "\n", omittingEmptySubsequences: false).map { "          " + $0 }.joined(
                separator: "\n")
            text = """
                devices:
                  - name: example
                    topic: t
                    publish: 1/s
                    payload:
                      fields:
                \(indented)
                """
        } else {
            text = example.text
        }
        let environment = ["MILKCOCOA_APP_ID": "demo", "BROKER_HOST": "localhost"]
        let directory = Self.reference.deletingLastPathComponent().path
        do {
            _ = try ScenarioLoader.load(text: text, file: directory + "/example.yaml", environment: environment)
        } catch {
            Issue.record("docs/\(example.document):\(example.line): \(error)")
        }
    }
}
