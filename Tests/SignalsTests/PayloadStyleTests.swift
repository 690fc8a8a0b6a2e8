import Foundation
import Testing
import Signals

@Suite struct PayloadStyleTests {
    func constant(_ name: String, _ value: SignalValue, decimals: Int? = nil, faults: FieldFaults = FieldFaults()) -> FieldSpec {
        FieldSpec(name: name, generator: ConstantRecipe(value: value), decimals: decimals, faults: faults)
    }

    @Test func nestedGroupsKeepTheirOrderAtAnyDepth() {
        let fields = [
            constant("id", .string("t-1")),
            FieldSpec(
                name: "location",
                fields: [
                    constant("lat", .number(52.52), decimals: 4),
                    constant("lon", .number(13.405), decimals: 4),
                    FieldSpec(name: "fix", fields: [constant("sats", .integer(7)), constant("ok", .bool(true))]),
                ]),
            constant("t", .number(21.5), decimals: 1),
        ]
        var flat = DeviceDriver(fields, style: .flat)
        #expect(flat.publish() == #"{"id":"t-1","location":{"lat":52.5200,"lon":13.4050,"fix":{"sats":7,"ok":true}},"t":21.5}"#)
        var milkcocoa = DeviceDriver(fields)
        #expect(
            milkcocoa.publish() == #"{"params":{"id":"t-1","location":{"lat":52.5200,"lon":13.4050,"fix":{"sats":7,"ok":true}},"t":21.5}}"#)
    }

    @Test func anEmptyGroupIsAnEmptyObject() {
        var device = DeviceDriver([FieldSpec(name: "g", fields: []), constant("a", .integer(1))], style: .flat)
        #expect(device.publish() == #"{"g":{},"a":1}"#)
    }

    func template(_ text: String) throws -> PayloadTemplate {
        try PayloadTemplate(text)
    }

    @Test func templateBytes() throws {
        let spec = PayloadSpec(
            style: .template,
            fields: [
                constant("device", .string("boiler \"3\"")),
                constant("temperature", .number(21.456), decimals: 1),
                constant("ts", .integer(1_764_417_600)),
                constant("on", .bool(false)),
            ], template: try template("{{device}},{{temperature}} {{ts}} {{on}}\n"))
        let signals = DeviceSignals(payload: spec, deviceID: "b-3", index: 3, seed: 1, sampleInterval: nil)
        var buffer = PayloadBuffer()
        signals.encode(elapsed: 0, wallClock: 0, into: &buffer)
        // Strings without quotes and without escapes: the template's text decides the format.
        #expect(buffer.text == "boiler \"3\",21.5 1764417600 false\n")
    }

    @Test func influxLineProtocolWithDevicePlaceholdersAndSpaces() throws {
        let spec = PayloadSpec(
            style: .template,
            fields: [
                constant("temperature", .number(21.25), decimals: 2),
                constant("humidity", .number(40)),
            ], template: try template("climate,device={{id}},n={{ index }} temperature={{temperature}},humidity={{humidity}}"))
        let signals = DeviceSignals(payload: spec, deviceID: "room-7", index: 7, seed: 1, sampleInterval: nil)
        var buffer = PayloadBuffer()
        signals.encode(elapsed: 0, wallClock: 0, into: &buffer)
        #expect(buffer.text == "climate,device=room-7,n=7 temperature=21.25,humidity=40")
    }

    @Test func aFieldNamedLikeADevicePlaceholderWins() throws {
        let spec = PayloadSpec(style: .template, fields: [constant("id", .string("mine"))], template: try template("{{id}}/{{index}}"))
        let signals = DeviceSignals(payload: spec, deviceID: "dev", index: 2, seed: 1, sampleInterval: nil)
        var buffer = PayloadBuffer()
        signals.encode(elapsed: 0, wallClock: 0, into: &buffer)
        #expect(buffer.text == "mine/2")
    }

    @Test func templateWithJSONBracesGroupsTimestampsAndRepeats() throws {
        let spec = PayloadSpec(
            style: .template,
            fields: [
                constant("t", .number(1.5)),
                FieldSpec(name: "loc", fields: [constant("lat", .number(1)), constant("name", .string("a\"b"))]),
                FieldSpec(name: "at", generator: TimestampRecipe(unit: .iso8601)),
            ], template: try template(#"{"t":{{t}},"again":{{t}},"loc":{{loc}},"at":"{{at}}"}"#))
        let signals = DeviceSignals(payload: spec, deviceID: "d", index: 1, seed: 1, sampleInterval: nil)
        var buffer = PayloadBuffer()
        signals.encode(elapsed: 0, wallClock: 1_764_417_600.25, into: &buffer)
        let text = buffer.text
        // A group keeps its JSON form (strings quoted) inside a template.
        #expect(text == #"{"t":1.5,"again":1.5,"loc":{"lat":1,"name":"a\"b"},"at":"2025-11-29T12:00:00.250Z"}"#)
        #expect((try? JSONSerialization.jsonObject(with: Data(buffer.bytes))) != nil)
    }

    @Test func templateParsing() throws {
        #expect(try template("a{{x}}b{{ y }}").segments == [.text("a"), .placeholder("x"), .text("b"), .placeholder("y")])
        #expect(try template("{{{x}}}").segments == [.text("{"), .placeholder("x"), .text("}")])
        #expect(try template("no placeholders { } }}").segments == [.text("no placeholders { } }}")])
        #expect(try template("{{x}}{{x}}").placeholders == ["x", "x"])
        #expect(throws: PayloadTemplate.SyntaxError(message: "'{{' is not closed by '}}'", offset: 2)) {
            try PayloadTemplate("ab{{x}")
        }
        #expect(throws: PayloadTemplate.SyntaxError(message: "an empty placeholder '{{}}'; put a field name between the braces", offset: 0))
        {
            try PayloadTemplate("{{ }}")
        }
    }

    @Test func templateWithoutTextIsWrittenFlat() {
        var device = DeviceDriver([constant("a", .integer(1))], style: .template)
        #expect(device.publish() == #"{"a":1}"#)
    }

    // MARK: - Dropout keeps JSON valid

    /// Four fields, the ones in `dropping` always omitted.
    func droppingDevice(_ dropping: Set<Int>, style: PayloadStyle) -> DeviceDriver {
        let omit = FieldFaults(dropout: .init(probability: 1, mode: .omit))
        return DeviceDriver(
            (0..<4).map { index in
                constant("f\(index)", .integer(Int64(index)), faults: dropping.contains(index) ? omit : FieldFaults())
            }, style: style)
    }

    @Test(
        arguments: [
            ([0], #"{"f1":1,"f2":2,"f3":3}"#),
            ([1], #"{"f0":0,"f2":2,"f3":3}"#),
            ([3], #"{"f0":0,"f1":1,"f2":2}"#),
            ([0, 1], #"{"f2":2,"f3":3}"#),
            ([1, 2], #"{"f0":0,"f3":3}"#),
            ([0, 3], #"{"f1":1,"f2":2}"#),
            ([0, 1, 2, 3], "{}"),
        ] as [([Int], String)])
    func omittedFieldsLeaveValidJSON(dropping: [Int], expected: String) throws {
        var flat = droppingDevice(Set(dropping), style: .flat)
        let payload = flat.publish()
        #expect(payload == expected)
        #expect((try? JSONSerialization.jsonObject(with: Data(payload.utf8))) != nil)
        var milkcocoa = droppingDevice(Set(dropping), style: .milkcocoa)
        #expect(milkcocoa.publish() == #"{"params":"# + expected + "}")
    }

    @Test func dropoutInsideGroupsAndAsNull() {
        let omit = FieldFaults(dropout: .init(probability: 1, mode: .omit))
        let null = FieldFaults(dropout: .init(probability: 1, mode: .null))
        var device = DeviceDriver(
            [
                FieldSpec(name: "g", fields: [constant("a", .integer(1), faults: omit), constant("b", .integer(2))]),
                FieldSpec(name: "h", fields: [constant("a", .integer(1), faults: omit)]),
                constant("s", .string("x"), faults: null),
                constant("n", .number(2.5), faults: null),
            ], style: .flat)
        #expect(device.publish() == #"{"g":{"b":2},"h":{},"s":null,"n":null}"#)
        #expect(device.signals.faultCounts == FaultCounts(dropout: 4))
    }

    @Test func dropoutInTemplates() throws {
        let spec = PayloadSpec(
            style: .template,
            fields: [
                constant("a", .integer(1), faults: FieldFaults(dropout: .init(probability: 1, mode: .omit))),
                constant("b", .integer(2), faults: FieldFaults(dropout: .init(probability: 1, mode: .null))),
            ], template: try template("a={{a}};b={{b}};a={{a}}"))
        let signals = DeviceSignals(payload: spec, deviceID: "d", index: 1, seed: 1, sampleInterval: nil)
        var buffer = PayloadBuffer()
        signals.encode(elapsed: 0, wallClock: 0, into: &buffer)
        #expect(buffer.text == "a=;b=null;a=")
        // A placeholder repeated is one value: its fault fires and counts once.
        #expect(signals.faultCounts == FaultCounts(dropout: 2))
    }
}
