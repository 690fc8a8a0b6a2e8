import Testing
import Scenario

@Suite struct QuantityTests {
    @Test(arguments: [
        ("250ms", 0.25), ("1s", 1), ("5m", 300), ("5min", 300), ("1.5h", 5400), ("24h", 86400),
        ("2d", 172_800), ("30", 30), ("0.5", 0.5), ("0", 0), ("10 s", 10),
    ])
    func durations(text: String, seconds: Double) throws {
        #expect(try Durations.parse(text) == seconds)
    }

    @Test(arguments: ["", "s", "abc", "-1s", "5 weeks", "1e3s", "nan", "inf", "1.2.3s", "5M"])
    func badDurations(text: String) {
        #expect(throws: QuantityError.self) { try Durations.parse(text) }
    }

    @Test func positiveDurationsRefuseZero() throws {
        #expect(try Durations.parsePositive("30s") == 30)
        #expect(throws: QuantityError.self) { try Durations.parsePositive("0s") }
    }

    @Test(arguments: [
        ("10/s", 0.1), ("600/min", 0.1), ("600/m", 0.1), ("10Hz", 0.1), ("10 Hz", 0.1), ("1/60s", 60),
        ("5/h", 720), ("1/250ms", 0.25), ("2/d", 43_200), ("0.5/s", 2),
    ])
    func rates(text: String, interval: Double) throws {
        let rate = try Rate.parse(text)
        guard case .every(let seconds) = rate else {
            Issue.record("expected an interval, got \(rate)")
            return
        }
        #expect(abs(seconds - interval) < 1e-9)
    }

    @Test func maxRate() throws {
        #expect(try Rate.parse("max") == .max)
    }

    @Test(arguments: ["", "10", "0/s", "-1/s", "10/", "/s", "1/0s", "0Hz", "10/week", "fast", "10 per s"])
    func badRates(text: String) {
        #expect(throws: QuantityError.self) { try Rate.parse(text) }
    }

    @Test(arguments: [
        ("100B", 100), ("100", 100), ("512KB", 524_288), ("64MB", 67_108_864), ("1GB", 1_073_741_824),
        ("64MiB", 67_108_864), ("2KiB", 2048), ("64mb", 67_108_864), ("1.5KB", 1536), ("0", 0),
    ])
    func sizes(text: String, bytes: Int) throws {
        #expect(try Sizes.parse(text) == bytes)
    }

    @Test(arguments: ["", "MB", "-1MB", "64 furlongs", "1e30GB", "99999999999999999999GB"])
    func badSizes(text: String) {
        #expect(throws: QuantityError.self) { try Sizes.parse(text) }
    }

    @Test func errorSaysWhatWasExpected() {
        #expect(throws: QuantityError(expected: "a duration such as 250ms, 30s, 5m, 1.5h or 2d", found: "soon")) {
            try Durations.parse("soon")
        }
        let error = QuantityError(expected: "a rate", found: "x")
        #expect(error.description == "expected a rate, found 'x'")
    }
}
