import Report
import Testing

@testable import Logging
@testable import Simulator

/// Logging writes its JSON without Signals' encoder (`JSONLiteral`, as it imports nothing): what
/// it writes must stay what the encoder writes (`JSONText`), so that a log line reads as before
/// Logging became a module of its own.
@Suite struct LogJSONTests {
    @Test func stringsAreEscapedAsThePayloadEncoderEscapesThem() {
        let texts = [
            "", "plain", "quote \" and backslash \\", "tab\tnewline\ncr\r", "\u{0}\u{1}\u{1F}\u{7F}",
            "\u{FEFF}bom first", "after \\\u{FEFF}", "é ü 漢字 🙂", "\u{EF}\u{BB}", "ends with \u{FEFF}",
        ]
        for text in texts {
            #expect(JSONLiteral.quoted(text) == JSONText.quoted(text), "\(text.debugDescription)")
        }
    }

    @Test func numbersHaveTheDecimalsThePayloadEncoderGivesThem() {
        let values: [Double] = [
            0, -0.0, 1, -1, 0.5, -0.5, 0.0005, -0.0004, 1.25, 2.675, 123.456789, -98765.4321, 1e15, 9.1e15, 1e20, -3e300,
            .nan, .infinity, -.infinity, .leastNonzeroMagnitude, .greatestFiniteMagnitude,
        ]
        for value in values {
            for decimals in [-1, 0, 1, 2, 3, 6, 17, 30] {
                #expect(
                    JSONLiteral.number(value, decimals: decimals) == JSONText.number(value, decimals: decimals),
                    "\(value) with \(decimals) decimals")
            }
        }
    }

    @Test func aJSONLogLineKeepsItsShape() {
        let logger = Logger(label: "devsim", format: .json) { _ in }
        let line = logger.line(
            .warning, "lost \"it\"", [("rate", .number(12.345, decimals: 1)), ("count", .integer(3)), ("at", "x\ty")],
            time: WallTime(secondsSinceEpoch: 1_764_763_200.123))
        #expect(
            line
                == #"{"ts":"2025-12-03T12:00:00.123Z","level":"warning","label":"devsim","rate":12.3,"count":3,"at":"x\u0009y","msg":"lost \"it\""}"#
                + "\n")
    }
}
