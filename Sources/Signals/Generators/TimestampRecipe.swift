/// `timestamp: ms`: the publish's wall-clock time, as integer seconds (`s`, the default), integer
/// milliseconds (`ms`), integer microseconds (`us`, or `µs`), integer nanoseconds (`ns`, as
/// InfluxDB's line protocol wants them; the clock's double keeps about a quarter microsecond) or
/// an ISO 8601 UTC string with milliseconds (`iso8601`; the field's `decimals` sets the digits
/// after the seconds, 0 for none).
package struct TimestampRecipe: GeneratorRecipe, FieldGenerator {
    package static let key = "timestamp"

    package enum Unit: String, Sendable, CaseIterable {
        case seconds = "s"
        case milliseconds = "ms"
        case microseconds = "us"
        case nanoseconds = "ns"
        case iso8601
    }

    package var unit: Unit

    package init(unit: Unit = .seconds) {
        self.unit = unit
    }

    package init(parameters: any ParameterSource) throws(ParameterError) {
        let key: String?
        let text: String
        if let shorthand = parameters.shorthand {
            (key, text) = (nil, shorthand)
        } else if let given = try parameters.string("unit") {
            (key, text) = ("unit", given)
        } else {
            self.init()
            return
        }
        guard let unit = Unit(rawValue: text == "µs" ? "us" : text) else {
            throw ParameterError(key: key, "unit must be s, ms, us, ns or iso8601, found '\(text)'")
        }
        self.init(unit: unit)
    }

    package func makeGenerator(context: GeneratorContext) -> any FieldGenerator {
        self
    }

    package func value(at instant: PublishInstant) -> SignalValue {
        let scale =
            switch unit {
            case .seconds: 1.0
            case .milliseconds, .iso8601: 1000.0
            case .microseconds: 1_000_000.0
            case .nanoseconds: 1_000_000_000.0
            }
        let scaled = (instant.wallClock * scale).rounded(.down)
        // Int64 traps outside its range; a clock that far off (or NaN) has no honest value.
        guard scaled.isFinite, Swift.abs(scaled) < 9.2e18 else { return .null }
        return unit == .iso8601 ? .utcTimestamp(milliseconds: Int64(scaled)) : .integer(Int64(scaled))
    }
}
