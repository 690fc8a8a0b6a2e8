import Foundation
import Testing
import Signals
import TestSupport

/// `replay` (`CSVColumnRecipe`) reads a real CSV file from a temporary directory.
@Suite struct CSVColumnRecipeTests {
    /// A fresh directory holding `files`, removed after `body`.
    static func withFiles(_ files: [String: String], _ body: (String) throws -> Void) throws {
        let directory = try RunFiles.folder(with: files).path + "/"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try body(directory)
    }

    static let readings = """
        time,temperature,state,"note, quoted"
        0,21.5,ok,"a ""quoted"" word"
        1,21.75,ok,plain\r
        2,,fault,
        3,-4e1,"ok",x

        """

    func replay(_ directory: String, _ values: [String: TestParameters.Value]) throws -> any GeneratorRecipe {
        var parameters = TestParameters(values)
        parameters.directory = directory
        return try recipe("replay", parameters)
    }

    func replayError(_ directory: String, _ values: [String: TestParameters.Value]) -> ParameterError? {
        var parameters = TestParameters(values)
        parameters.directory = directory
        return parameterError("replay", parameters)
    }

    @Test func readsAColumnByNameAndLoops() throws {
        try Self.withFiles(["readings.csv": Self.readings]) { directory in
            let byName = try replay(directory, ["file": .string("readings.csv"), "column": .string("temperature")])
            #expect(
                GeneratorHarness(byName).values(6) == [
                    .number(21.5), .number(21.75), .null, .number(-40),
                    .number(21.5), .number(21.75),
                ])
        }
    }

    @Test func readsAColumnByIndexWithNumbersAndStrings() throws {
        try Self.withFiles(["readings.csv": Self.readings]) { directory in
            let state = try replay(directory, ["file": .string("readings.csv"), "column": .number(2)])
            #expect(GeneratorHarness(state).values(4) == [.string("ok"), .string("ok"), .string("fault"), .string("ok")])
            let note = try replay(directory, ["file": .string("readings.csv"), "column": .string("note, quoted")])
            #expect(GeneratorHarness(note).values(4) == [.string("a \"quoted\" word"), .string("plain"), .null, .string("x")])
        }
    }

    @Test func withoutAHeaderTheFirstRowIsData() throws {
        try Self.withFiles(["plain.csv": "1,a\n2,b\n"]) { directory in
            let first = try replay(directory, ["file": .string("plain.csv"), "column": .number(0), "header": .bool(false)])
            #expect(GeneratorHarness(first).values(3) == [.number(1), .number(2), .number(1)])
            #expect(
                replayError(directory, ["file": .string("plain.csv"), "column": .string("a"), "header": .bool(false)])?.key
                    == "column")
        }
    }

    @Test func anAbsolutePathIsTakenAsIs() throws {
        try Self.withFiles(["readings.csv": Self.readings]) { directory in
            let absolute = try replay("/nowhere/", ["file": .string(directory + "readings.csv"), "column": .number(0)])
            #expect(GeneratorHarness(absolute).values(2) == [.number(0), .number(1)])
        }
    }

    @Test func missingFileOrColumnNamesTheKey() throws {
        try Self.withFiles(["readings.csv": Self.readings, "empty.csv": "a,b\n"]) { directory in
            let missing = replayError(directory, ["file": .string("nope.csv"), "column": .number(0)])
            #expect(missing?.key == "file")
            #expect(missing?.message.contains(directory + "nope.csv") == true)
            #expect(missing?.message.contains("no such file") == true)
            let column = replayError(directory, ["file": .string("readings.csv"), "column": .string("humidity")])
            #expect(column?.key == "column")
            #expect(column?.message.contains("'temperature'") == true)
            #expect(replayError(directory, ["file": .string("readings.csv"), "column": .number(9)])?.key == "column")
            #expect(replayError(directory, ["file": .string("readings.csv"), "column": .number(-1)])?.key == "column")
            #expect(replayError(directory, ["file": .string("readings.csv")])?.key == "column")
            #expect(replayError(directory, ["column": .number(0)])?.key == "file")
            #expect(replayError(directory, ["file": .string("empty.csv"), "column": .number(0)])?.key == "file")
            #expect(replayError(directory, ["file": .string(""), "column": .number(0)])?.key == "file")
        }
    }
}
