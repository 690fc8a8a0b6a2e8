import Foundation
import Testing
import Signals

@Suite struct JSONWriterTests {
    func number(_ value: Double, _ decimals: Int?) -> String {
        var buffer = PayloadBuffer()
        JSONWriter.writeNumber(value, decimals: decimals, into: &buffer)
        return buffer.text
    }

    func string(_ value: String) -> String {
        var buffer = PayloadBuffer()
        JSONWriter.writeString(value, into: &buffer)
        return buffer.text
    }

    @Test(
        arguments: [
            (0.0123, 4, "0.0123"),
            (-0.9981, 4, "-0.9981"),
            (0.01, 4, "0.0100"),
            (1.5, 4, "1.5000"),
            // Half rounds away from zero; 0.00005 × 10⁴ is exactly 0.5 in binary.
            (0.00005, 4, "0.0001"),
            (-0.00005, 4, "-0.0001"),
            (0.000049999, 4, "0.0000"),
            // 1.005 is really 1.00499999999999989…, so it rounds down.
            (1.005, 2, "1.00"),
            (-0.00004, 4, "0.0000"),
            (-0.0, 4, "0.0000"),
            (2.5, 0, "3"),
            (-2.5, 0, "-3"),
            (-0.4, 0, "0"),
            (7, 3, "7.000"),
            (123456789.125, 2, "123456789.13"),
            (-42, 1, "-42.0"),
            (1e20, 2, "1e+20"),
            (-1e20, 0, "-1e+20"),
            // Decimals are capped at 17; past 2⁵³ in fixed point the natural form takes over.
            (0.001, 40, "0.00100000000000000"),
            (0.5, 40, "0.5"),
        ] as [(Double, Int, String)])
    func fixedDecimals(value: Double, decimals: Int, expected: String) {
        #expect(number(value, decimals) == expected)
    }

    @Test(
        arguments: [
            (5.0, "5"),
            (-0.0, "0"),
            (0.1, "0.1"),
            (-1.25, "-1.25"),
            (0.30000000000000004, "0.30000000000000004"),
            (9_007_199_254_740_991, "9007199254740991"),
            (1e20, "1e+20"),
            (1e-7, "0.0000001"),
            (1e-300, "1e-300"),
        ] as [(Double, String)])
    func naturalForm(value: Double, expected: String) {
        #expect(number(value, nil) == expected)
        #expect(Double(expected) == value)
    }

    @Test func nonFiniteIsNull() {
        for value in [Double.nan, .infinity, -.infinity] {
            #expect(number(value, 4) == "null")
            #expect(number(value, nil) == "null")
        }
    }

    @Test func integers() {
        func integer(_ value: Int64, _ decimals: Int?) -> String {
            var buffer = PayloadBuffer()
            JSONWriter.writeInteger(value, decimals: decimals, into: &buffer)
            return buffer.text
        }
        #expect(integer(0, nil) == "0")
        #expect(integer(42, 2) == "42.00")
        #expect(integer(-7, 0) == "-7")
        #expect(integer(.max, nil) == "9223372036854775807")
        #expect(integer(.min, nil) == "-9223372036854775808")
    }

    @Test func randomValuesRoundTrip() {
        var random = Xoshiro256StarStar(seed: 7)
        for _ in 0..<2000 {
            let value = (random.nextUnit() - 0.5) * Double(1 << (random.next() % 40))
            #expect(Double(number(value, nil)) == value)
        }
    }

    /// Fixed point of every length of digits and every count of decimals, against the integer's
    /// own text with the point put in by hand: the digits are written two at a time.
    @Test func fixedPointOfEveryLength() {
        var random = Xoshiro256StarStar(seed: 11)
        for _ in 0..<5000 {
            let digits = Int(random.next() % 16) + 1
            let magnitude = random.next() % UInt64(pow(10.0, Double(digits)))
            let decimals = Int(random.next() % 18)
            let value = Double(magnitude) / pow(10.0, Double(decimals)) * (random.next() % 2 == 0 ? 1 : -1)
            let scaled = (value * pow(10.0, Double(decimals))).rounded(.toNearestOrAwayFromZero)
            guard abs(scaled) < 9_007_199_254_740_992 else { continue }
            var text = String(UInt64(abs(scaled)))
            if text.count <= decimals { text = String(repeating: "0", count: decimals + 1 - text.count) + text }
            if decimals > 0 { text.insert(".", at: text.index(text.endIndex, offsetBy: -decimals)) }
            let expected = (scaled < 0 ? "-" : "") + text
            #expect(number(value, decimals) == expected, "\(value) with \(decimals) decimals")
        }
        for power in 0...18 {
            let integer = Int64(pow(10.0, Double(power)))
            var buffer = PayloadBuffer()
            JSONWriter.writeInteger(integer - 1, into: &buffer)
            JSONWriter.writeInteger(integer, into: &buffer)
            #expect(buffer.text == String(integer - 1) + String(integer))
        }
    }

    @Test func stringEscaping() {
        #expect(string("plain") == #""plain""#)
        #expect(string(#"x"y"#) == #""x\"y""#)
        #expect(string(#"a\b"#) == #""a\\b""#)
        #expect(string("line\nbreak\ttab") == #""line\u000abreak\u0009tab""#)
        #expect(string("\u{1F}\u{0}") == #""\u001f\u0000""#)
        #expect(string("héllo ✓") == "\"héllo ✓\"")
        #expect(string("") == #""""#)
    }

    @Test func boolsAndNull() {
        var buffer = PayloadBuffer()
        JSONWriter.writeBool(true, into: &buffer)
        JSONWriter.writeBool(false, into: &buffer)
        JSONWriter.writeNull(into: &buffer)
        #expect(buffer.text == "truefalsenull")
    }
}
