import Foundation
import Scenario
import Testing

/// Every input of the fuzzer's seed corpus, and every regression input it found, loads or fails
/// with well-formed diagnostics, as in the fuzzer (Fuzz/ScenarioFuzzer): CI replays in
/// milliseconds what scripts/fuzz.sh explores for minutes.
@Suite struct FuzzCorpusTests {
    static let fuzz = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz")

    /// Paths relative to Fuzz/, e.g. `corpus/edge-tabs.yaml`.
    static var inputs: [String] {
        ["corpus", "crashes"].flatMap { folder in
            let names = (try? FileManager.default.contentsOfDirectory(atPath: fuzz.appendingPathComponent(folder).path)) ?? []
            return names.sorted().map { "\(folder)/\($0)" }
        }
    }

    @Test func theCorpusIsThere() {
        #expect(Self.inputs.filter { $0.hasPrefix("corpus/") }.count >= 50)
    }

    @Test(arguments: inputs)
    func inputIsHandled(_ input: String) throws {
        let bytes = try [UInt8](Data(contentsOf: Self.fuzz.appendingPathComponent(input)))
        do {
            _ = try ScenarioLoader.loadIsolated(bytes: bytes, file: "fuzz.yaml", environment: ["HOST": "localhost", "EMPTY": ""])
        } catch {
            #expect(!error.diagnostics.isEmpty)
            for diagnostic in error.diagnostics {
                #expect(
                    diagnostic.line >= 1 && diagnostic.column >= 1 && !diagnostic.message.isEmpty && diagnostic.file == "fuzz.yaml",
                    "\(diagnostic)")
            }
        }
    }
}
