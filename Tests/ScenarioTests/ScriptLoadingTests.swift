import Foundation
import Testing
import TestSupport

@testable import Scenario

/// Issue 40, item 2: a device group's `script:` as it loads: a script that cannot be loaded is
/// said once, at its own file and line, and nothing that follows from it is said beside.
@Suite struct ScriptLoadingTests {
    /// What loading a scenario of one group with `commands:` and `script` (s.lua), its `script:`
    /// naming `named`, said, the folder left out.
    func problems(script: String, named: String = "s.lua") throws -> [String] {
        let folder = try RunFiles.folder(with: [
            "s.yaml": """
            devices:
              - name: door
                topic: t
                publish: 1/s
                script: \(named)
                commands: { topic: "t/set" }
                payload: { fields: { locked: { constant: false } } }
            """,
            "s.lua": script,
        ])
        defer { try? FileManager.default.removeItem(at: folder) }
        do {
            _ = try ScenarioLoader.load(file: folder.appendingPathComponent("s.yaml").path, environment: [:])
            return ["loaded without errors"]
        } catch {
            return error.diagnostics.map { $0.description.replacingOccurrences(of: folder.path + "/", with: "") }
        }
    }

    @Test func aScriptWithACommandHookTakesCommandsThatNoFieldDoes() throws {
        #expect(try problems(script: "function command(device, field, value)\n  return true\nend\n") == ["loaded without errors"])
    }

    @Test func aScriptThatDoesNotLoadIsSaidOnceAtItsLineAndNotAsCommandsWithoutATaker() throws {
        let said = try problems(script: "function command(device, field, value)\n  return = true\nend\n")
        #expect(said == ["s.lua:2:1: unexpected symbol near '='"], "\(said)")
    }

    @Test func aScriptThatCannotBeReadIsSaidWithTheReason() throws {
        let said = try problems(script: "function tick(device) end\n", named: "nope.lua")
        #expect(said == ["s.yaml:5:13: cannot read the script 'nope.lua': no such file or directory"], "\(said)")
    }
}
