import Testing

@testable import Scenario

/// The one JSON reader of recordings: what inference keeps (key order, decimals) and what a
/// replay finds its timestamps by (each scalar's path and bytes).
@Suite struct RecordedJSONTests {
    @Test func keepsTheOrderOfKeysAndTheDecimalsOfNumbers() {
        let json = RecordedJSON.parse(Array(#"{"z": 1.50, "a": [2, 3e2], "m": "x"}"#.utf8))
        let expected = RecordedJSON.object([
            .init(key: "z", value: .number(1.5, decimals: 2, integer: false)),
            .init(
                key: "a",
                value: .array([.number(2, decimals: 0, integer: true), .number(300, decimals: 0, integer: false)])),
            .init(key: "m", value: .string("x")),
        ])
        #expect(json == expected)
    }

    @Test func findsEachScalarsPathAndBytes() throws {
        let text = #"{"ts": 1700000000, "meta": {"time": "2024-01-01T00:00:00Z"}, "r": [true, null], "e": {}}"#
        let bytes = Array(text.utf8)
        let scalars = try #require(RecordedJSON.scalars(bytes))
        #expect(scalars.map(\.path) == [".ts", ".meta.time", ".r[]", ".r[]"])
        #expect(
            scalars.map { String(decoding: bytes[$0.range], as: UTF8.self) } == [
                "1700000000", #""2024-01-01T00:00:00Z""#, "true", "null",
            ])
        #expect(RecordedJSON.scalars(Array(" 42 ".utf8)) == [.init(path: "", range: 1..<3)])
    }

    @Test func refusesWhatIsNotOneJSONValue() {
        for text in ["", "{", #"{"a" 1}"#, "[1,]", "tru", "1 2", #""unterminated"#, "{\"a\": 1} x", "-"] {
            #expect(RecordedJSON.parse(Array(text.utf8)) == nil, "\(text)")
            #expect(RecordedJSON.scalars(Array(text.utf8)) == nil, "\(text)")
        }
    }

    @Test func refusesNestingPastTheDepthLimit() {
        let shallow = String(repeating: "[", count: 63) + "1" + String(repeating: "]", count: 63)
        let deep = String(repeating: "[", count: 64) + "1" + String(repeating: "]", count: 64)
        #expect(RecordedJSON.parse(Array(shallow.utf8)) != nil)
        #expect(RecordedJSON.parse(Array(deep.utf8)) == nil)
        #expect(RecordedJSON.scalars(Array(deep.utf8)) == nil)
    }
}
