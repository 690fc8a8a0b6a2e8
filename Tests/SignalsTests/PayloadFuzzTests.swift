import Foundation
import Testing
import Signals

/// Random field names and values, in every JSON style, must always make JSON that Foundation's
/// parser accepts and reads back as what was meant. The PRNG has a fixed seed, so a failure names
/// a case that replays.
@Suite struct PayloadFuzzTests {
    static let cases = 3000

    /// What a field should read back as.
    indirect enum Expected {
        case number(Double, decimals: Int?)
        case integer(Int64, decimals: Int?)
        case bool(Bool)
        case string(String)
        case timestamp
        case null
        case object([(name: String, value: Expected)])
    }

    struct Fuzzer {
        var random: SplitMix64

        mutating func below(_ bound: Int) -> Int {
            Int(random.next() % UInt64(bound))
        }

        mutating func chance(_ probability: Double) -> Bool {
            random.nextUnit() < probability
        }

        static let scalarPools: [[Unicode.Scalar]] = [
            Array("abcXYZ019 _-.:/".unicodeScalars),
            ["\"", "\\", "/", "'", "{", "}", "[", "]", ",", ":"],
            (0..<0x20).map { Unicode.Scalar(UInt8($0)) } + ["\u{7F}"],
            ["é", "ß", "中", "文", "Ж", "\u{2028}", "\u{2029}", "\u{FEFF}", "\u{FFFD}", "\u{FFFF}"],
            ["😀", "𝄞", "🇯", "🇵", "\u{10FFFF}", "𝕏", "👩‍👩‍👧"].flatMap(\.unicodeScalars),
            ["\u{0301}", "\u{0308}", "\u{20DD}", "\u{200D}", "\u{FE0F}"],
        ]

        mutating func string() -> String {
            var text = String.UnicodeScalarView()
            for _ in 0..<below(12) {
                let pool = Self.scalarPools[below(Self.scalarPools.count)]
                text.append(pool[below(pool.count)])
            }
            return String(text)
        }

        static let specialNumbers: [Double] = [
            0, -0.0, 1, -1, .nan, -.nan, .infinity, -.infinity, .greatestFiniteMagnitude, -.greatestFiniteMagnitude,
            .leastNonzeroMagnitude, .leastNormalMagnitude, -.leastNonzeroMagnitude, 9_007_199_254_740_992,
            1e22, 1e23, 1e-7, 0.1, 0.2 + 0.1, 123_456.789_012_345_678, -0.000_05, 0.5, 2.5, -2.5,
        ]

        mutating func number() -> Double {
            switch below(4) {
            case 0: return Self.specialNumbers[below(Self.specialNumbers.count)]
            case 1: return Double(bitPattern: random.next())
            case 2: return (random.nextUnit() - 0.5) * pow(10, Double(below(40) - 20))
            default: return Double(Int64(bitPattern: random.next()) >> below(64))
            }
        }

        mutating func decimals() -> Int? {
            chance(0.4) ? nil : below(18)
        }

        /// A field with a unique name (`index` is appended) and what it should read back as;
        /// `nil` expected value when the field is always omitted.
        mutating func field(index: Int, depth: Int) -> (FieldSpec, Expected?) {
            let name = string() + "#\(index)"
            if depth < 3 && chance(0.15) {
                var members: [FieldSpec] = []
                var expected: [(String, Expected)] = []
                for member in 0..<below(5) {
                    let (spec, value) = field(index: member, depth: depth + 1)
                    members.append(spec)
                    if let value { expected.append((spec.name, value)) }
                }
                return (FieldSpec(name: name, fields: members), .object(expected))
            }
            let decimals = decimals()
            let value: SignalValue
            var expected: Expected
            switch below(7) {
            case 0, 1:
                let number = number()
                value = .number(number)
                expected = number.isFinite ? .number(number, decimals: decimals) : .null
            case 2:
                let integer = Int64(bitPattern: random.next()) >> below(64)
                value = .integer(integer)
                expected = .integer(integer, decimals: decimals)
            case 3:
                let flag = chance(0.5)
                value = .bool(flag)
                expected = .bool(flag)
            case 4, 5:
                let text = string()
                value = .string(text)
                expected = .string(text)
            default:
                let milliseconds = Int64(bitPattern: random.next()) >> below(64)
                value = .utcTimestamp(milliseconds: milliseconds)
                expected = .timestamp
            }
            var faults = FieldFaults()
            if chance(0.15) {
                faults.dropout = .init(probability: 1, mode: chance(0.5) ? .omit : .null)
            }
            let spec = FieldSpec(name: name, generator: ConstantRecipe(value: value), decimals: decimals, faults: faults)
            switch faults.dropout?.mode {
            case .omit: return (spec, nil)
            case .null: return (spec, .null)
            case nil: return (spec, expected)
            }
        }
    }

    @Test func randomPayloadsAreValidJSONThatReadsBack() throws {
        var fuzzer = Fuzzer(random: SplitMix64(seed: 0xDEC0DE))
        var buffer = PayloadBuffer()
        for index in 0..<Self.cases {
            let style: PayloadStyle = fuzzer.chance(0.5) ? .milkcocoa : .flat
            var fields: [FieldSpec] = []
            var expected: [(String, Expected)] = []
            for position in 0..<fuzzer.below(8) {
                let (spec, value) = fuzzer.field(index: position, depth: 0)
                fields.append(spec)
                if let value { expected.append((spec.name, value)) }
            }
            let signals = DeviceSignals(
                payload: PayloadSpec(style: style, fields: fields), deviceID: "fuzz-\(index)",
                index: index, seed: 1, sampleInterval: nil)
            buffer.removeAll()
            signals.encode(elapsed: 0, wallClock: 0, into: &buffer)
            let text = buffer.text
            guard let parsed = try? JSONSerialization.jsonObject(with: Data(buffer.bytes)) else {
                Issue.record("case \(index): not JSON: \(text.debugDescription)")
                continue
            }
            var object = parsed
            if style == .milkcocoa {
                guard let outer = parsed as? [String: Any], outer.count == 1, let params = outer["params"] else {
                    Issue.record("case \(index): no params: \(text.debugDescription)")
                    continue
                }
                object = params
            }
            if let problem = Self.mismatch(object, .object(expected)) {
                Issue.record("case \(index): \(problem) in \(text.debugDescription)")
            }
        }
    }

    @Test func byteOrderMarksAreEscapedAndTheirNeighboursKept() {
        var buffer = PayloadBuffer()
        JSONWriter.writeString("\u{FEFF}a\\\u{FEFF}\u{FFFD}\u{F8FF}\u{FEFF}", into: &buffer)
        #expect(buffer.text == "\"\\ufeffa\\\\\\ufeff\u{FFFD}\u{F8FF}\\ufeff\"")
    }

    /// Why `parsed` is not what `expected` says, or `nil` when it is.
    static func mismatch(_ parsed: Any, _ expected: Expected) -> String? {
        switch expected {
        case .object(let members):
            guard let object = parsed as? [String: Any] else { return "expected an object, found \(parsed)" }
            guard object.count == members.count else { return "expected \(members.count) members, found \(object.count)" }
            for (name, value) in members {
                guard let member = object[name] else { return "missing key \(name.debugDescription)" }
                if let problem = mismatch(member, value) { return "\(name.debugDescription): \(problem)" }
            }
            return nil
        case .null:
            return parsed is NSNull ? nil : "expected null, found \(parsed)"
        case .bool(let flag):
            return (parsed as? Bool) == flag ? nil : "expected \(flag), found \(parsed)"
        case .string(let text):
            return (parsed as? String) == text ? nil : "expected \(text.debugDescription), found \(parsed)"
        case .timestamp:
            return parsed is NSNull || (parsed as? String)?.hasSuffix("Z") == true ? nil : "expected a timestamp, found \(parsed)"
        case .integer(let value, let decimals):
            guard let number = parsed as? NSNumber else { return "expected \(value), found \(parsed)" }
            if decimals ?? 0 == 0, number.int64Value == value { return nil }
            return close(number.doubleValue, Double(value), decimals: nil) ? nil : "expected \(value), found \(number)"
        case .number(let value, let decimals):
            guard let number = parsed as? NSNumber else { return "expected \(value), found \(parsed)" }
            return close(number.doubleValue, value, decimals: decimals)
                ? nil : "expected \(value) (decimals \(String(describing: decimals))), found \(number)"
        }
    }

    /// Within the rounding that `decimals` asks for, and a few ulps: Foundation's parser is off by
    /// an ulp or two for large exponents, where our text is Swift's exact shortest form.
    static func close(_ parsed: Double, _ value: Double, decimals: Int?) -> Bool {
        let rounding = decimals.map { 0.5 * pow(10, -Double($0)) } ?? 0
        return abs(parsed - value) <= rounding * (1 + 1e-9) + abs(value) * 1e-13 + Double.leastNonzeroMagnitude
    }
}
