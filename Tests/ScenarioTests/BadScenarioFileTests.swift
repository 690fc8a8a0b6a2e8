import Foundation
import Testing
@testable import Scenario
import Signals
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Files that are no scenario at all, or far past any real one: each ends, quickly, in
/// diagnostics with a place in the file; none traps, overflows the stack or hangs.
@Suite struct BadScenarioFileTests {
    /// The diagnostics of loading `bytes` (with the test generators) as `FILE:LINE:COLUMN: message` lines.
    func diagnostics(_ bytes: [UInt8]) -> [String] {
        do {
            _ = try ScenarioLoader.load(bytes: bytes, file: "test.yaml", environment: [:], generators: .test)
            return ["loaded without errors"]
        } catch {
            return error.diagnostics.map(\.description)
        }
    }

    static let tooManyLevels = "nesting deeper than 200 levels"

    // MARK: - Deeply nested

    @Test func hundredThousandFlowSequences() {
        #expect(problems(String(repeating: "[", count: 100_000)) == ["test.yaml:1:201: \(Self.tooManyLevels)"])
    }

    @Test func hundredThousandFlowMappings() {
        #expect(problems(String(repeating: "{a: ", count: 100_000)) == ["test.yaml:1:801: \(Self.tooManyLevels)"])
    }

    @Test func hundredThousandBlockSequences() {
        #expect(problems(String(repeating: "- ", count: 100_000)) == ["test.yaml:1:401: \(Self.tooManyLevels)"])
    }

    @Test func thousandBlockMappings() {
        let text = (0..<1000).map { String(repeating: " ", count: $0) + "k:\n" }.joined()
        #expect(problems(text) == ["test.yaml:201:201: \(Self.tooManyLevels)"])
    }

    /// Each anchor keeps within the limit, but each alias puts the previous anchor's levels inside
    /// 150 more. Before aliases counted, these 100 lines made a tree 15,000 levels deep, and the
    /// walk that fills in `${VAR}` overflowed the stack (SIGSEGV).
    @Test func aliasesCannotNestPastTheLimit() {
        let open = String(repeating: "[", count: 150), close = String(repeating: "]", count: 150)
        var text = "a0: &a0 \(open)x\(close)\n"
        for level in 1..<100 {
            text += "a\(level): &a\(level) \(open)*a\(level - 1)\(close)\n"
        }
        #expect(
            problems(text) == [
                "test.yaml:2:159: \(Self.tooManyLevels): the alias '*a0' adds the 150 levels of its anchor to the 151 it stands in"
            ])
    }

    /// An alias may bring its anchor's levels up to the limit, not past it.
    @Test func aliasAtTheLimit() {
        let anchor = "x: &a " + String(repeating: "[", count: 199) + String(repeating: "]", count: 199) + "\n"
        #expect(YAMLParser(bytes: Array((anchor + "y: *a\n").utf8)).problems.isEmpty)
        #expect(
            YAMLParser(bytes: Array((anchor + "y: [*a]\n").utf8)).problems.map(\.message) == [
                "\(Self.tooManyLevels): the alias '*a' adds the 199 levels of its anchor to the 2 it stands in"
            ])
    }

    // MARK: - Huge

    @Test func fiftyMegabytesAreRefusedUnparsed() {
        let bytes = Array("name: ".utf8) + [UInt8](repeating: UInt8(ascii: "a"), count: 50_000_000)
        #expect(
            diagnostics(bytes) == [
                "test.yaml:1:1: the file is too large: it is 50000006 bytes; a scenario file may be at most 16 MB (16777216 bytes)"
            ])
    }

    /// The size is checked before the file is read.
    @Test func oversizedFileOnDiskIsRefusedUnread() throws {
        let directory = try RunFiles.folder()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("huge.yaml").path
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        #expect(truncate(path, 17 * 1024 * 1024) == 0)
        do {
            _ = try ScenarioLoader.load(file: path, environment: [:])
            Issue.record("a 17 MB file loaded")
        } catch {
            #expect(
                error.description
                    == "\(path):1:1: cannot load the scenario: it is 17825792 bytes; a scenario file may be at most 16 MB (16777216 bytes)")
        }
        do {
            _ = try ScenarioLoader.load(
                text: "include: huge.yaml\n", file: directory.appendingPathComponent("s.yaml").path, environment: [:])
            Issue.record("a scenario including a 17 MB file loaded")
        } catch {
            #expect(
                error.diagnostics.map(\.message) == [
                    "cannot include 'huge.yaml': it is 17825792 bytes; a scenario file may be at most 16 MB (16777216 bytes) (looked for \(path))"
                ])
        }
    }

    @Test func fifteenMegabyteValueLoads() throws {
        let name = String(repeating: "n", count: 15_000_000)
        let scenario = try load("name: \(name)\n" + minimalDevices)
        #expect(scenario.name.utf8.count == 15_000_000)
    }

    @Test func millionItemListIsRefused() {
        let text = "devices:\n" + String(repeating: "- 1\n", count: 1_000_000)
        #expect(
            problems(text) == [
                "test.yaml:1000001:3: the file holds more than 1000000 values, lists and mappings; a scenario needs far fewer"
            ])
    }

    /// A problem per item: before, putting 200,000 of them in file order compared each with
    /// every other, for hours. Past 100, the rest are counted.
    @Test func twoHundredThousandProblemsAreCounted() {
        let found = problems("devices:\n" + String(repeating: "- 1\n", count: 200_000))
        #expect(found.count == 101)
        #expect(found.first == "test.yaml:2:3: expected a mapping for a device group, found '1'")
        #expect(found.last == "test.yaml:102:3: 199900 more problems from here on are not listed; fix the ones above first")
    }

    @Test func keyRepeatedTwoHundredThousandTimes() {
        let found = problems(String(repeating: "name: x\n", count: 200_000))
        #expect(found.count == 101)
        #expect(
            found.prefix(3) == [
                "test.yaml:1:1: missing 'devices' in the scenario (a list of device groups)",
                "test.yaml:2:1: duplicate key 'name' (first at line 1, column 1)",
                "test.yaml:3:1: duplicate key 'name' (first at line 1, column 1)",
            ])
        #expect(found.last == "test.yaml:101:1: 199900 more problems from here on are not listed; fix the ones above first")
    }

    /// A megabyte-long word is compared with no candidate for a "did you mean", and is quoted
    /// by its start and length.
    @Test func megabyteLongValueIsQuotedShort() {
        let value = String(repeating: "x", count: 1_000_000)
        #expect(
            problems("broker: { protocol: \(value) }\n" + minimalDevices) == [
                "test.yaml:1:21: expected mqtt31, mqtt311 or mqtt5 for 'protocol', found '\(value.prefix(100))… (1000000 characters)'"
            ])
    }

    /// Each `$${` without a `}` after it used to look for one to the end of the text again.
    @Test func millionDollarBracesStayLiteralInLinearTime() throws {
        let name = String(repeating: "$${", count: 1_000_000)
        #expect(try load("name: '\(name)'\n" + minimalDevices).name == name)
    }

    /// Every unknown placeholder used to be looked for among every field, twice.
    @Test func templateWithTenThousandUnknownPlaceholders() {
        let fields = (0..<10_000).map { "f\($0): { constant: 1 }" }.joined(separator: ", ")
        let template = (0..<10_000).map { "{{g\($0)}}" }.joined()
        let text = """
            devices:
              - name: p
                topic: t
                publish: 1/s
                payload: { style: template, template: "\(template)", fields: { \(fields) } }
            """
        let found = problems(text)
        #expect(found.count == 101)
        #expect(found.first == "test.yaml:5:43: unknown placeholder '{{g0}}' in 'template'; did you mean '{{f0}}'?")
        #expect(
            found[20] == "test.yaml:5:43: unknown placeholder '{{g20}}' in 'template'; expected a field of the payload "
                + "(f0, f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11 and 9988 more) or {{id}}, {{index}}")
    }

    // MARK: - Binary

    @Test func randomBytes() {
        var generator = SplitMix64(seed: 7)
        let bytes = (0..<65_536).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
        #expect(diagnostics(bytes) == ["test.yaml:1:2: the file is not valid UTF-8 text: invalid trailing UTF-8 octet (byte 0x1C)"])
    }

    @Test func nulBytes() {
        #expect(
            diagnostics([UInt8](repeating: 0, count: 4096)) == [
                "test.yaml:1:1: the file is not text: it holds the control character U+0000, which YAML does not allow; is it a binary file?"
            ])
        #expect(
            diagnostics(Array("name: a\n".utf8) + [0] + Array(minimalDevices.utf8)) == [
                "test.yaml:2:1: the file is not text: it holds the control character U+0000, which YAML does not allow; is it a binary file?"
            ])
    }

    /// At the first byte that cannot be read: the sequence's start, or its bad trailing byte.
    @Test(
        arguments: [
            ([0x80], 8, "invalid leading UTF-8 octet (byte 0x80)"),
            ([0xC3, 0x28], 9, "invalid trailing UTF-8 octet (byte 0x28)"),
            ([0xC0, 0xAF], 8, "invalid length of a UTF-8 sequence"),
            ([0xED, 0xA0, 0x80], 8, "invalid Unicode character (U+D800)"),
            ([0xE2, 0x82], 8, "incomplete UTF-8 octet sequence"),
        ] as [([UInt8], Int, String)])
    func invalidUTF8(sequence: [UInt8], column: Int, problem: String) {
        #expect(diagnostics(Array("name: é".utf8) + sequence) == ["test.yaml:1:\(column): the file is not valid UTF-8 text: \(problem)"])
    }

    @Test func invalidUTF8AfterAByteOrderMark() {
        #expect(
            diagnostics([0xEF, 0xBB, 0xBF] + Array("a: 1\nb: ".utf8) + [0xFF]) == [
                "test.yaml:2:4: the file is not valid UTF-8 text: invalid leading UTF-8 octet (byte 0xFF)"
            ])
    }

    @Test(
        arguments: [
            (
                "PNG", [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52],
                "test.yaml:1:1: the file is not valid UTF-8 text: invalid leading UTF-8 octet (byte 0x89)"
            ),
            (
                "gzip", [0x1F, 0x8B, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00],
                "test.yaml:1:1: the file is not text: it holds the control character U+001F, which YAML does not allow; is it a binary file?"
            ),
            (
                "ELF", [0x7F, 0x45, 0x4C, 0x46, 0x02, 0x01, 0x01, 0x00],
                "test.yaml:1:1: the file is not text: it holds the control character U+007F, which YAML does not allow; is it a binary file?"
            ),
        ] as [(String, [UInt8], String)])
    func binaryFileHeaders(format: String, header: [UInt8], expected: String) {
        #expect(diagnostics(header + [UInt8](repeating: 0, count: 64)) == [expected], "\(format)")
    }

    /// libyaml reads UTF-16 with a byte order mark, so such a scenario loads, its marks counted
    /// in characters.
    @Test(arguments: [true, false])
    func utf16WithByteOrderMark(littleEndian: Bool) throws {
        let text = "\u{FEFF}" + minimalDevices.replacingOccurrences(of: "publish: 1/s", with: "publish: 1/s\n    qos: 3")
        let units = text.utf16.flatMap { unit in
            littleEndian ? [UInt8(unit & 0xFF), UInt8(unit >> 8)] : [UInt8(unit >> 8), UInt8(unit & 0xFF)]
        }
        #expect(diagnostics(units) == ["test.yaml:5:10: expected 0, 1 or 2 for 'qos', found 3"])
    }

    @Test func utf16WithoutByteOrderMarkIsNotText() {
        let units = minimalDevices.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        #expect(
            diagnostics(units) == [
                "test.yaml:1:2: the file is not text: it holds the control character U+0000, which YAML does not allow; is it a binary file?"
            ])
    }

    @Test func truncatedUTF16() {
        #expect(
            diagnostics([0xFF, 0xFE, 0x61, 0x00, 0x3A]) == ["test.yaml:1:2: the file is not valid UTF-16 text: incomplete UTF-16 character"]
        )
        // Second line, after a character written as a surrogate pair.
        #expect(
            diagnostics([0xFE, 0xFF, 0x00, 0x61, 0x00, 0x0A, 0xD8, 0x3D, 0xDE, 0x00, 0x00, 0x20, 0xDC, 0x00]) == [
                "test.yaml:2:3: the file is not valid UTF-16 text: unexpected low surrogate area"
            ])
    }

    // MARK: - Empty

    /// The plain cases (nothing, spaces, a comment, `---`, `~`) are in YAMLParserTests.
    @Test(
        arguments: [
            [], Array(" \t\r\n\r\n".utf8), Array("# one\r\n# two\r\n".utf8), Array("---\n...\n".utf8),
            Array("--- ~\n".utf8), Array("null\n".utf8), [0xEF, 0xBB, 0xBF], [0xFF, 0xFE], Array("%YAML 1.1\n---\n".utf8),
        ] as [[UInt8]])
    func emptyFile(bytes: [UInt8]) {
        #expect(diagnostics(bytes) == ["test.yaml:1:1: the file is empty; expected a scenario with 'devices'"])
    }

    // MARK: - Files a scenario names

    /// A `replay` file is read whole as the scenario loads; a device would never end, and a pipe
    /// would block until written to.
    @Test func replayOfADeviceOrAPipeIsRefused() throws {
        let directory = try RunFiles.folder()
        defer { try? FileManager.default.removeItem(at: directory) }
        let fifo = directory.appendingPathComponent("readings.csv").path
        #expect(mkfifo(fifo, 0o600) == 0)
        for path in ["/dev/zero", fifo] {
            let text = minimalDevices.replacingOccurrences(of: "{ accelerometer: x }", with: "{ replay: { file: \(path), column: 0 } }")
            do {
                _ = try ScenarioLoader.load(text: text, file: "test.yaml", environment: [:])
                Issue.record("replaying \(path) loaded")
            } catch {
                #expect(
                    error.diagnostics.map(\.description) == [
                        "test.yaml:7:30: cannot read '\(path)': it is a device or a pipe, not a file"
                    ])
            }
        }
    }
}
