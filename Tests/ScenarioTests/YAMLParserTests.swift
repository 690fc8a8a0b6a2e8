import Testing
@testable import Scenario

@Suite struct YAMLParserTests {
    func parse(_ text: String) -> YAMLParser { YAMLParser(bytes: Array(text.utf8)) }

    @Test func keepsKeyOrderAndPositions() throws {
        let parsed = parse("b: 1\na: \"2\"\nc:\n  - x\n")
        guard case .mapping(let pairs)? = parsed.root?.kind else {
            Issue.record("expected a mapping")
            return
        }
        #expect(pairs.map { $0.key.scalarText } == ["b", "a", "c"])
        #expect(pairs[1].value.mark == Mark(line: 2, column: 4))
        guard case .scalar("2", .quoted) = pairs[1].value.kind else {
            Issue.record("a quoted scalar stays quoted")
            return
        }
        guard case .sequence(let items) = pairs[2].value.kind else {
            Issue.record("expected a list")
            return
        }
        #expect(items[0].mark == Mark(line: 4, column: 5))
    }

    @Test func syntaxErrorHasLibyamlsPosition() {
        let parsed = parse("a: 1\nb: [1, 2\nc: 3\n")
        #expect(parsed.root == nil)
        #expect(parsed.problems.count == 1)
        #expect(parsed.problems.first?.mark.line == 3)
        #expect(parsed.problems.first?.message.hasPrefix("YAML syntax error: ") == true)
    }

    /// libyaml says "did not find expected key"; a person needs to hear "indentation".
    @Test(arguments: ["devices:\n  - name: a\n    topic: t\n   publish: 1/s\n", "a:\n  b: 1\n    c: 2\n"])
    func aLineIndentedWronglyIsSaidToBe(text: String) {
        let parsed = parse(text)
        #expect(
            parsed.problems.first?.message.hasSuffix(
                "; check the indentation: the keys of one mapping start in one column, with spaces, not tabs") == true,
            "\(parsed.problems)")
    }

    @Test func syntaxErrorsOfAnotherKindGetNoIndentationHint() {
        #expect(parse("a: [1, 2\n").problems.first?.message.contains("indentation") == false)
    }

    @Test func duplicateKeyIsReportedAtTheSecond() {
        let parsed = parse("host: a\nport: 1\nhost: b\n")
        #expect(parsed.problems.map(\.mark) == [Mark(line: 3, column: 1)])
        #expect(parsed.problems.first?.message == "duplicate key 'host' (first at line 1, column 1)")
    }

    @Test func aliasesAndMergeKeys() throws {
        let parsed = parse(
            """
            base: &base { host: h, port: 1 }
            copy: *base
            merged:
              <<: *base
              port: 2
            """)
        #expect(parsed.problems.isEmpty)
        guard case .mapping(let top)? = parsed.root?.kind, case .mapping(let merged) = top[2].value.kind else {
            Issue.record("expected mappings")
            return
        }
        #expect(merged.map { $0.key.scalarText } == ["host", "port"])
        #expect(merged.map { $0.value.scalarText } == ["h", "2"])
        guard case .mapping(let copy) = top[1].value.kind else {
            Issue.record("the alias should be the anchored mapping")
            return
        }
        #expect(copy.count == 2)
    }

    @Test func unknownAlias() {
        #expect(parse("a: *nowhere\n").problems.first?.message.contains("unknown anchor 'nowhere'") == true)
    }

    @Test func aliasBombIsRefused() {
        var text = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
        for level in 1...8 {
            let previous = "*a\(level - 1)"
            text += "a\(level): &a\(level) [\(Array(repeating: previous, count: 10).joined(separator: ", "))]\n"
        }
        let parsed = parse(text)
        #expect(parsed.problems.first?.message.contains("expand to more than") == true)
    }

    @Test func deepNestingIsRefused() {
        let parsed = parse(String(repeating: "[", count: 10_000))
        #expect(parsed.root == nil)
        #expect(!parsed.problems.isEmpty)
    }

    @Test(arguments: ["", "   \n\n", "# only a comment\n", "---\n", "~\n"])
    func emptyFile(text: String) {
        let parsed = parse(text)
        #expect(parsed.root == nil)
        #expect(parsed.problems.map(\.message) == ["the file is empty; expected a scenario with 'devices'"])
    }

    @Test func secondDocumentIsAnError() {
        let parsed = parse("a: 1\n---\nb: 2\n")
        #expect(parsed.problems.map(\.mark) == [Mark(line: 2, column: 1)])
    }

    @Test func invalidUTF8IsASyntaxError() {
        let parsed = YAMLParser(bytes: Array("a: 1\nbé: ".utf8) + [0xFF, 0xFE] + Array("\n".utf8))
        #expect(parsed.root == nil)
        #expect(parsed.problems.map(\.mark) == [Mark(line: 2, column: 5)])
        #expect(parsed.problems.first?.message.hasPrefix("the file is not valid UTF-8 text") == true)
    }

    @Test func jsonIsYAML() {
        let parsed = parse(#"{"b": [1, "x"], "a": {"c": true}}"#)
        #expect(parsed.problems.isEmpty)
        guard case .mapping(let pairs)? = parsed.root?.kind else {
            Issue.record("expected a mapping")
            return
        }
        #expect(pairs.map { $0.key.scalarText } == ["b", "a"])
    }
}
