import Testing
import Signals

@Suite struct UTCTimestampTests {
    func iso(_ milliseconds: Int64) -> String {
        var buffer = PayloadBuffer()
        UTCTimestamp.writeISO8601(milliseconds: milliseconds, into: &buffer)
        return buffer.text
    }

    @Test func knownDates() {
        #expect(iso(0) == #""1970-01-01T00:00:00.000Z""#)
        #expect(iso(1_795_953_600_123) == #""2026-11-29T12:00:00.123Z""#)
        #expect(iso(-1) == #""1969-12-31T23:59:59.999Z""#)
        #expect(iso(4_107_542_400_000) == #""2100-03-01T00:00:00.000Z""#)
        #expect(iso(-11_670_953_104_000) == #""1600-02-29T12:34:56.000Z""#)
    }

    @Test func leapDays() {
        #expect(iso(1_709_251_199_999) == #""2024-02-29T23:59:59.999Z""#)
        #expect(iso(1_709_251_200_000) == #""2024-03-01T00:00:00.000Z""#)
        #expect(iso(951_782_400_000) == #""2000-02-29T00:00:00.000Z""#)
    }

    /// Issue 38, item 21: the field's `decimals` says the digits after the seconds, so that a
    /// model of a recording with whole seconds writes whole seconds (`--infer`).
    @Test func theFieldsDecimalsAreTheDigitsAfterTheSeconds() {
        func written(decimals: Int?) -> String {
            var driver = DeviceDriver(
                [FieldSpec(name: "t", generator: TimestampRecipe(unit: .iso8601), decimals: decimals)], style: .flat)
            return driver.publish(wallClock: 1_795_953_600.987)
        }
        #expect(written(decimals: nil) == #"{"t":"2026-11-29T12:00:00.987Z"}"#)
        #expect(written(decimals: 0) == #"{"t":"2026-11-29T12:00:00Z"}"#)
        #expect(written(decimals: 1) == #"{"t":"2026-11-29T12:00:00.9Z"}"#, "cut, not rounded: a time never runs ahead")
        #expect(written(decimals: 6) == #"{"t":"2026-11-29T12:00:00.987000Z"}"#)
    }

    @Test func outOfRangeIsNull() {
        #expect(iso(-62_167_219_200_001) == "null")  // one millisecond before year 0
        #expect(iso(.max) == "null")
    }
}
