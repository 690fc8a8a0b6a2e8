import Foundation
import Testing
import Signals

/// Issue 29, item 2: payloads of an exact size, padded with spaces that keep JSON the same
/// object, and binary `bytes` payloads.
@Suite struct PayloadSizeTests {
    func signals(_ fields: [FieldSpec], style: PayloadStyle = .milkcocoa, size: Int?, template: PayloadTemplate? = nil, seed: UInt64 = 1)
        -> DeviceSignals
    {
        DeviceSignals(
            payload: PayloadSpec(style: style, fields: fields, template: template, size: size), deviceID: "d-1", index: 1, seed: seed,
            sampleInterval: nil)
    }

    func payloads(_ signals: DeviceSignals, _ count: Int) -> [[UInt8]] {
        var buffer = PayloadBuffer()
        return (0..<count).map { tick in
            buffer.removeAll()
            signals.encode(elapsed: Double(tick), wallClock: 1_700_000_000 + Double(tick), into: &buffer)
            return buffer.bytes
        }
    }

    static let varying = [
        FieldSpec(name: "seq", generator: CounterRecipe()),
        FieldSpec(name: "t", generator: GaussianRecipe(mean: 0, standardDeviation: 1000)),
        FieldSpec(name: "state", generator: ChoiceRecipe(values: [.string("on"), .string("a longer state")])),
    ]

    @Test func everyPayloadIsTheSizeAskedAndTheSameJSON() throws {
        let sized = signals(Self.varying, size: 1024)
        let plain = signals(Self.varying, size: nil)
        for (padded, bare) in zip(payloads(sized, 200), payloads(plain, 200)) {
            #expect(padded.count == 1024)
            let object = try JSONSerialization.jsonObject(with: Data(padded)) as? NSDictionary
            let expected = try JSONSerialization.jsonObject(with: Data(bare)) as? NSDictionary
            #expect(object != nil && object == expected)
        }
        #expect(sized.takeOversized() == 0)
    }

    @Test func aFlatPayloadAndATemplateArePaddedToo() throws {
        for bytes in payloads(signals(Self.varying, style: .flat, size: 100), 50) {
            #expect(bytes.count == 100 && String(decoding: bytes, as: UTF8.self).hasSuffix(" }"))
            #expect(try JSONSerialization.jsonObject(with: Data(bytes)) is NSDictionary)
        }
        let template = try PayloadTemplate("seq={{seq}} state={{state}}")
        for (tick, bytes) in payloads(signals(Self.varying, style: .template, size: 64, template: template), 20).enumerated() {
            let text = String(decoding: bytes, as: UTF8.self)
            #expect(bytes.count == 64 && text.hasPrefix("seq=\(tick) state=") && text.hasSuffix(" "))
        }
    }

    @Test func fieldsLongerThanTheSizeAreSentWholeAndCounted() throws {
        var mode = FieldSpec(name: "mode", generator: ConstantRecipe(value: .string("auto")))
        mode.command = .set
        let device = signals([mode], style: .flat, size: 32)
        #expect(payloads(device, 1).first?.count == 32)
        try device.take([("mode", .text(String(repeating: "x", count: 40)))])
        let long = try #require(payloads(device, 2).last)
        #expect(long == Array(#"{"mode":"\#(String(repeating: "x", count: 40))"}"#.utf8), "whole, not cut")
        #expect(device.takeOversized() == 2 && device.takeOversized() == 0, "both long payloads, once")
    }

    @Test func theLongestLengthBoundsWhatComesOut() {
        let fields = [
            FieldSpec(name: "g", generator: GaussianRecipe(mean: 0, standardDeviation: 1e6)),
            FieldSpec(name: "u", generator: GaussianRecipe(mean: 0, standardDeviation: 1e-9)),
            FieldSpec(name: "s", generator: SineRecipe(min: -40, max: 85, period: 60), decimals: 3),
            FieldSpec(name: "id", generator: UUIDRecipe()),
            FieldSpec(name: "on", generator: BoolRecipe()),
        ]
        for style in [PayloadStyle.milkcocoa, .flat] {
            let spec = PayloadSpec(style: style, fields: fields)
            let longest = spec.longestLength ?? 0
            let made = payloads(signals(fields, style: style, size: nil), 2000).map(\.count).max() ?? .max
            #expect(made <= longest, "\(style): \(made) > \(longest)")
        }
        #expect(
            PayloadSpec(style: .flat, fields: [FieldSpec(name: "s", generator: SineRecipe(min: -40, max: 85, period: 60), decimals: 3)])
                .longestLength == 13, "{\"s\":-85.000}")
    }

    @Test func sampleShowsAPaddedPayloadWithoutItsPaddingAndARawOneInHex() {
        let padded = Array(#"{"params":{"s":"a  "#.utf8) + Array(repeating: UInt8(ascii: " "), count: 50) + Array(#""}}"#.utf8)
        #expect(
            DeviceSignals.sizedText(Array(#"{"params":{"n":1}"#.utf8) + Array(repeating: 32, count: 10) + Array("}".utf8))
                == #"{"params":{"n":1}}  (28 bytes: 10 spaces of padding not shown)"#)
        #expect(DeviceSignals.sizedText(padded).hasPrefix(#"{"params":{"s":"a  "#))
        #expect(DeviceSignals.sizedText(Array("n=1    ".utf8)) == "n=1  (7 bytes: 4 spaces of padding not shown)")
        #expect(DeviceSignals.rawText([0, 1, 0xab]) == "raw 3 bytes: 00 01 ab")
        #expect(DeviceSignals.rawText(Array(repeating: 0xff, count: 17)).hasSuffix("ff …"))
    }

    @Test func repeatedBytesAreThePatternCutToTheSize() {
        let field = FieldSpec(name: "blob", generator: BytesRecipe(size: 1000, content: .repeat, pattern: Array("abc".utf8)))
        let expected = Array(Array(repeating: Array("abc".utf8), count: 334).joined().prefix(1000))
        #expect(payloads(signals([field], style: .raw, size: nil), 3).allSatisfy { $0 == expected })
        let every = FieldSpec(name: "blob", generator: BytesRecipe(size: 300, content: .repeat))
        #expect(payloads(signals([every], style: .raw, size: nil), 1).first == Array((0..<300).map { UInt8($0 % 256) }))
    }

    @Test func randomBytesDifferByMessageAndReplayBySeed() {
        for size in [1, 13, 64, 65_536] {
            let field = FieldSpec(name: "blob", generator: BytesRecipe(content: .random))
            let first = payloads(signals([field], style: .raw, size: size, seed: 7), 5)
            #expect(first.allSatisfy { $0.count == size })
            #expect(first == payloads(signals([field], style: .raw, size: size, seed: 7), 5), "the same seed, the same bytes")
            #expect(first != payloads(signals([field], style: .raw, size: size, seed: 8), 5), "another seed, other bytes")
            if size >= 13 { #expect(Set(first).count == 5, "each message its own bytes") }
        }
    }
}
