import Foundation
import Testing
@testable import Scenario
import Signals
import TestSupport

/// What the loader's `ParameterSource` adds for the generators: paths found next to the scenario
/// file, typed list items, errors at the parameter's line and column.
@Suite struct GeneratorParameterLoadingTests {
    /// A scenario in a fresh directory beside `files`, loaded from disk with the real generators.
    static func withScenario(
        _ fields: String, files: [String: String] = [:], in subdirectory: String = "",
        _ body: (_ directory: String, _ result: Result<Scenario, ScenarioError>) throws -> Void
    ) throws {
        let text = "devices:\n  - name: d\n    topic: t\n    publish: 1/s\n    payload:\n      fields:\n" + fields
        var written = Dictionary(uniqueKeysWithValues: files.map { (subdirectory + $0.key, $0.value) })
        written[subdirectory + "scenario.yaml"] = text
        let directory = try RunFiles.folder(with: written).path + "/"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + subdirectory + "scenario.yaml"
        let result = Result { () throws(ScenarioError) -> Scenario in
            try ScenarioLoader.load(file: file, environment: [:])
        }
        try body(directory + subdirectory, result)
    }

    static func generator(_ result: Result<Scenario, ScenarioError>) throws -> any GeneratorRecipe {
        try #require(try result.get().groups.first?.payload.fields.first?.generator)
    }

    @Test func replayFileIsFoundBesideTheScenario() throws {
        // The test runs elsewhere: only resolving against the scenario's directory finds data.csv.
        try Self.withScenario(
            "        X: { replay: { file: data.csv, column: x } }\n",
            files: ["data.csv": "t,x\n0,1.5\n1,hello\n"], in: "nested/"
        ) { _, result in
            let replay = try #require(try Self.generator(result) as? CSVColumnRecipe)
            #expect(replay.values == [.number(1.5), .string("hello")])
        }
    }

    @Test func replayMissingFileIsReportedAtTheFileKey() throws {
        try Self.withScenario("        X: { replay: { file: gone.csv, column: x } }\n") { directory, result in
            #expect(throws: ScenarioError.self) { try result.get() }
            guard case .failure(let error) = result else { return }
            #expect(
                error.diagnostics.map(\.description)
                    == ["\(directory)scenario.yaml:7:30: cannot read '\(directory)gone.csv': no such file or directory"])
        }
    }

    @Test func replayMissingColumnIsReportedAtTheColumnKey() throws {
        try Self.withScenario("        X: { replay: { file: data.csv, column: y } }\n", files: ["data.csv": "t,x\n0,1\n"]) { _, result in
            guard case .failure(let error) = result else {
                Issue.record("loaded a missing column")
                return
            }
            #expect(error.diagnostics.count == 1)
            #expect(error.diagnostics.first.map { ($0.line, $0.column) } ?? (0, 0) == (7, 48))
        }
    }

    @Test func listItemsKeepTheirYAMLType() throws {
        try Self.withScenario("        X: { choice: { values: [1, \"2\", on, true, 'false'], weights: [1, 1, 1, 1, 1] } }\n") { _, result in
            let choice = try #require(try Self.generator(result) as? ChoiceRecipe)
            #expect(choice.values == [.number(1), .string("2"), .string("on"), .bool(true), .string("false")])
        }
    }

    @Test func generatorParametersAreCheckedByTheLoader() throws {
        try Self.withScenario("        X: { randomWalk: { step: 0.1, meanReverson: 0.2 } }\n") { directory, result in
            guard case .failure(let error) = result else {
                Issue.record("loaded an unknown parameter")
                return
            }
            #expect(
                error.diagnostics.map(\.description)
                    == ["\(directory)scenario.yaml:7:39: unknown parameter 'meanReverson' for randomWalk; did you mean 'meanReversion'?"])
        }
    }
}
