import Testing
import TestSupport

@testable import Signals

/// A device's fields as Sparkplug metrics, read back by the independent decoder (Python's
/// protobuf with the specification's schema): births name, alias and type every metric; data
/// carries aliases alone, without datatypes; every metric has a timestamp (6.4.16 and the
/// payload chapter's requirements for NBIRTH, DBIRTH, NDATA and DDATA).
@Suite(.tags(.integration), .notUnitOnly) struct SparkplugDeviceTests {
    let fields = [
        FieldSpec(name: "temperature", generator: ConstantRecipe(value: .number(21.54)), decimals: 1),
        FieldSpec(name: "count", generator: CounterRecipe()),
        FieldSpec(name: "running", generator: ConstantRecipe(value: .bool(true))),
        FieldSpec(name: "mode", generator: ConstantRecipe(value: .string("auto"))),
        FieldSpec(name: "location", fields: [FieldSpec(name: "lat", generator: ConstantRecipe(value: .number(48.5)))]),
    ]

    func device(_ reporting: SparkplugReporting) -> DeviceSignals {
        let signals = DeviceSignals(
            payload: PayloadSpec(style: .flat, fields: fields), deviceID: "filler-1", index: 1, seed: 1, sampleInterval: nil)
        signals.useSparkplug(firstAlias: 10, reporting: reporting)
        return signals
    }

    @Test func aBirthNamesAliasesAndTypesEveryMetric() throws {
        let signals = device(.everyMetric)
        var buffer = PayloadBuffer()
        signals.encodeSparkplugBirth(elapsed: 0, wallClock: 1_700_000_000.25, into: &buffer)
        let birth = try SparkplugPython.decode(buffer.bytes)
        #expect(birth.timestamp == "1700000000250")
        #expect(birth.seq == nil, "the node appends it")
        #expect(birth.metrics.map(\.name) == ["temperature", "count", "running", "mode", "location/lat"])
        #expect(birth.metrics.map(\.alias) == ["10", "11", "12", "13", "14"])
        // Double, Int64, Boolean, String, Double.
        #expect(birth.metrics.map(\.datatype) == ["10", "4", "11", "12", "10"])
        #expect(birth.metrics.map(\.valueField) == ["double_value", "long_value", "boolean_value", "string_value", "double_value"])
        #expect(birth.metrics.map(\.value) == ["21.5", "0", "true", "auto", "48.5"])
        #expect(birth.metrics.allSatisfy { $0.timestamp == "1700000000250" })
        #expect(signals.sparkplugMetricNames == ["temperature", "count", "running", "mode", "location/lat"])
    }

    @Test func dataByEveryMetricCarriesAliasesAloneWithoutDatatypes() throws {
        let signals = device(.everyMetric)
        var buffer = PayloadBuffer()
        signals.encodeSparkplugBirth(elapsed: 0, wallClock: 1_700_000_000, into: &buffer)
        buffer.removeAll()
        #expect(signals.encodeSparkplugData(elapsed: 1, wallClock: 1_700_000_001, into: &buffer) == 5)
        let data = try SparkplugPython.decode(buffer.bytes)
        #expect(data.timestamp == "1700000001000")
        #expect(data.metrics.map(\.alias) == ["10", "11", "12", "13", "14"])
        #expect(data.metrics.allSatisfy { $0.name == nil && $0.datatype == nil && $0.timestamp == "1700000001000" })
        #expect(data.metrics.map(\.value) == ["21.5", "1", "true", "auto", "48.5"])
    }

    @Test func reportByExceptionSendsWhatMovedPastTheDeadband() throws {
        let signals = device(.byException(deadband: 1.5))
        var buffer = PayloadBuffer()
        signals.encodeSparkplugBirth(elapsed: 0, wallClock: 1_700_000_000, into: &buffer)
        // The counter counts 1, 2, 3, 4 after the birth's 0; the constants never change.
        var sent: [[String?]] = []
        for tick in 1...4 {
            buffer.removeAll()
            let written = signals.encodeSparkplugData(elapsed: Double(tick), wallClock: 1_700_000_000 + Double(tick), into: &buffer)
            let data = try SparkplugPython.decode(buffer.bytes)
            #expect(data.metrics.count == written)
            sent.append(data.metrics.map(\.value))
            #expect(data.metrics.allSatisfy { $0.alias == "11" })
        }
        // 1 is within 1.5 of 0; 2 is not, and is what the host holds; 3 is within; 4 is not.
        #expect(sent == [[], ["2"], [], ["4"]])
    }

    @Test func aZeroDeadbandSendsEveryChange() {
        #expect(SparkplugDeviceMetrics.differs(.double(1), from: .double(1), by: 0) == false)
        #expect(SparkplugDeviceMetrics.differs(.double(1.0001), from: .double(1), by: 0))
        #expect(SparkplugDeviceMetrics.differs(.double(.nan), from: .double(1), by: 5))
        #expect(SparkplugDeviceMetrics.differs(nil, from: .double(1), by: 5))
        #expect(SparkplugDeviceMetrics.differs(.string("a"), from: .string("a"), by: 0) == false)
        #expect(SparkplugDeviceMetrics.differs(.int(3), from: .int(1), by: 1.5))
    }
}
