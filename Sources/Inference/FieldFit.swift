import Foundation
import Scenario

/// The generator fitted to one payload field's recorded values, as the scenario text of the
/// field: the generator's map, and a comment of what was seen so a person can check it.
///
/// The fits, in the order they are tried: a value that never changes is a `constant`; integers
/// near the time since 1970 that never go down are a `timestamp` (s, ms, us or ns), text that
/// reads as an ISO 8601 time one too; integers that rise by one step at (nearly) every message are
/// a `counter` of that step, numbers that never go down one of their mean step; with a day of
/// recording or more a number that follows the day is a `sine` of 24 h (and noise); numbers
/// whose successive values are correlated are a `randomWalk` (its step the spread of the
/// differences, its mean reversion what keeps the recorded spread), else a `uniform` when they
/// are spread evenly, a `gaussian` when not; booleans and few distinct texts that hold for a while
/// are a `dwell` of the recorded stays, else a `bool` or a `choice` of the recorded shares. A key
/// left out of some messages, or null in them, is a `dropout` fault of that probability.
struct FieldFit: Sendable {
    /// The field's map, after `name: `: `{ counter: { start: 0, step: 1 } }`; `nil` when the
    /// field cannot be generated (an array), and `comment` says why.
    var generator: String?
    /// What was seen: `240 values, 19.1 to 23.8, mean 21.46`.
    var comment: String
    /// A group's fields, when the values are objects.
    var members: [(name: String, fit: FieldFit)] = []

    /// A span of recording that shows a daily shape: most of a day.
    static let dailySpan = 18.0 * 3600

    /// The fit of `series`.
    static func fit(_ series: FieldSeries) -> FieldFit {
        let points = series.points
        let values = series.values
        let absent = points.count { $0.value == nil }
        let nulls = points.count { $0.value == .null }
        let missing = Double(absent + nulls) / Double(max(points.count, 1))
        let faults =
            missing > 0 && !values.isEmpty
            ? ", faults: { dropout: { probability: \(RecordingScenario.estimate(missing, significant: 3))\(nulls > absent ? ", mode: \"null\"" : "") } }"
            : ""
        let seen =
            "\(values.count) \(values.count == 1 ? "value" : "values")" + (missing > 0 ? " (\(absent + nulls) messages without it)" : "")
        guard let first = values.first else {
            return FieldFit(generator: "{ constant: \"\" }", comment: "never had a value: written as an empty text")
        }
        switch first {
        case .object:
            guard values.allSatisfy({ if case .object = $0 { true } else { false } }) else { break }
            let members = series.members().map { (name: $0.key, fit: fit($0.series)) }
            return FieldFit(generator: nil, comment: "an object, \(seen)", members: members)
        case .array:
            return FieldFit(generator: nil, comment: "arrays, \(seen): devsim generates none, so the field is left out")
        case .number:
            let numbers = values.compactMap { if case .number(let value, _, _) = $0 { value } else { nil } }
            guard numbers.count == values.count else { break }
            return numeric(series, numbers: numbers, seen: seen, faults: faults)
        case .bool:
            guard values.allSatisfy({ if case .bool = $0 { true } else { false } }) else { break }
            return states(series, seen: seen, faults: faults, fallback: "bool")
        case .string:
            let texts = values.compactMap { if case .string(let text) = $0 { text } else { nil } }
            guard texts.count == values.count else { break }
            return text(series, texts: texts, seen: seen, faults: faults)
        case .null:
            break
        }
        return FieldFit(
            generator: "{ constant: \(literal(first)) }",
            comment: "values of more than one kind, \(seen): written as the first")
    }

    // MARK: Numbers

    private static func numeric(_ series: FieldSeries, numbers: [Double], seen: String, faults: String) -> FieldFit {
        let minimum = numbers.min() ?? 0
        let maximum = numbers.max() ?? 0
        let mean = Statistics.mean(numbers)
        let integers = series.values.allSatisfy { if case .number(_, _, true) = $0 { true } else { false } }
        let decimals = series.values.map { if case .number(_, let decimals, _) = $0 { decimals } else { 0 } }.max() ?? 0
        let written = { (value: Double) in RecordingScenario.number(value, decimals: decimals) }
        var comment = "\(seen), \(written(minimum)) to \(written(maximum)), mean \(RecordingScenario.estimate(mean))"
        let decimalsKey = integers ? "" : ", decimals: \(min(decimals, 15))"
        if minimum == maximum {
            return FieldFit(generator: "{ constant: \(written(minimum))\(faults) }", comment: comment)
        }
        let perSource = series.sources.map { source in
            source.points.compactMap { point -> Double? in
                if case .number(let value, _, _)? = point.value { value } else { nil }
            }
        }
        let differences = perSource.flatMap { values in zip(values.dropFirst(), values).map { $0 - $1 } }
        let rising = !differences.isEmpty && differences.allSatisfy { $0 >= 0 }
        if rising, let unit = timestampUnit(minimum: minimum, maximum: maximum, integers: integers || decimals == 0) {
            return FieldFit(generator: "{ timestamp: \(unit)\(faults) }", comment: comment + ": the time since 1970, in \(unit)")
        }
        if integers, let step = commonStep(differences), step != 0 {
            let start = perSource.first { !$0.isEmpty }?.first ?? minimum
            return FieldFit(
                generator: "{ counter: { start: \(written(start)), step: \(written(step)) }\(faults) }",
                comment: comment + ", a step of \(written(step)) from one message to the next")
        }
        if rising, differences.contains(where: { $0 > 0 }) {
            let start = perSource.first { !$0.isEmpty }?.first ?? minimum
            let step = Statistics.mean(differences)
            return FieldFit(
                generator: "{ counter: { start: \(written(start)), step: \(RecordingScenario.estimate(step)) }\(decimalsKey)\(faults) }",
                comment: comment + ", never going down: \(RecordingScenario.estimate(step)) a message on average")
        }
        let deviation = Statistics.deviation(numbers)
        comment += ", σ \(RecordingScenario.estimate(deviation))"
        let points = series.points.compactMap { point -> (Double, Double)? in
            if case .number(let value, _, _)? = point.value { (point.time, value) } else { nil }
        }
        let span = (points.map(\.0).max() ?? 0) - (points.map(\.0).min() ?? 0)
        if span >= dailySpan,
            let daily = Statistics.sineFit(times: points.map(\.0), values: points.map(\.1), period: 86400),
            daily.explained >= 0.5
        {
            let amplitude = (daily.sine * daily.sine + daily.cosine * daily.cosine).squareRoot()
            // sine's value is middle + amplitude·sin(2π(t/period + phase)).
            var phase = atan2(daily.cosine, daily.sine) / (2 * Double.pi)
            if phase < 0 { phase += 1 }
            let noise = deviation * (1 - daily.explained).squareRoot()
            let estimate = { (value: Double) in RecordingScenario.number(value, decimals: max(decimals, 2)) }
            return FieldFit(
                generator: "{ sine: { min: \(estimate(daily.mean - amplitude)), max: \(estimate(daily.mean + amplitude)), period: 24h, "
                    + "phase: \(RecordingScenario.number(phase, decimals: 3)) }, noise: \(RecordingScenario.estimate(noise)), "
                    + "min: \(written(minimum)), max: \(written(maximum))\(decimalsKey)\(faults) }",
                comment: comment + ", following the day (\(Int((daily.explained * 100).rounded())) % of the variance)")
        }
        let correlation = Statistics.lagOneCorrelation(perSource, mean: mean)
        comment += ", successive values correlated \(RecordingScenario.number(correlation, decimals: 2))"
        let estimate = { (value: Double) in RecordingScenario.number(value, decimals: max(decimals + 1, 2)) }
        if correlation >= 0.5, !differences.isEmpty {
            let step = Statistics.deviation(differences)
            // The walk's long-run spread is step / √(1 − (1 − r)²): r keeps the recorded one.
            let ratio = deviation > 0 ? min(1, step * step / (deviation * deviation)) : 1
            let reversion = min(1, max(0.001, 1 - (1 - ratio).squareRoot()))
            return FieldFit(
                generator:
                    "{ randomWalk: { mean: \(estimate(mean)), step: \(RecordingScenario.estimate(max(step, 1e-9))), min: \(written(minimum)), "
                    + "max: \(written(maximum)), meanReversion: \(RecordingScenario.estimate(reversion, significant: 3)) }\(decimalsKey)\(faults) }",
                comment: comment)
        }
        if Statistics.excessKurtosis(numbers) < -0.8 {
            return FieldFit(
                generator: "{ uniform: { min: \(written(minimum)), max: \(written(maximum)) }\(decimalsKey)\(faults) }",
                comment: comment + ", spread evenly")
        }
        return FieldFit(
            generator:
                "{ gaussian: { mean: \(estimate(mean)), stddev: \(RecordingScenario.estimate(deviation)) }, min: \(written(minimum)), "
                + "max: \(written(maximum))\(decimalsKey)\(faults) }",
            comment: comment)
    }

    /// The unit of a timestamp between 2001 and 2286 in it (`s`, `ms`, `us`, `ns`); `nil` for
    /// numbers that are not one. Not the replay's `TimestampForm` on purpose: that one must write a
    /// value back in its exact form, this one only names the generator of a whole series.
    private static func timestampUnit(minimum: Double, maximum: Double, integers: Bool) -> String? {
        guard integers else { return nil }
        for (unit, scale) in [("s", 1e9), ("ms", 1e12), ("us", 1e15), ("ns", 1e18)] where minimum >= scale && maximum < 10 * scale {
            return unit
        }
        return nil
    }

    /// The difference nine in ten successive values have, if there is one.
    private static func commonStep(_ differences: [Double]) -> Double? {
        guard !differences.isEmpty else { return nil }
        var counts: [Double: Int] = [:]
        for difference in differences { counts[difference, default: 0] += 1 }
        guard let (step, count) = counts.max(by: { $0.value < $1.value }), Double(count) >= 0.9 * Double(differences.count) else {
            return nil
        }
        return step
    }

    // MARK: States

    /// Booleans or few texts: a `dwell` of the recorded stays when values hold for a while, else
    /// `fallback` (`bool` or `choice`) with the recorded shares.
    private static func states(_ series: FieldSeries, seen: String, faults: String, fallback: String) -> FieldFit {
        let values = series.values
        var order: [RecordedJSON] = []
        var counts: [String: Int] = [:]
        for value in values {
            let key = literal(value)
            if counts[key] == nil { order.append(value) }
            counts[key, default: 0] += 1
        }
        if fallback == "bool" { order.sort { literal($0) < literal($1) } }  // false, then true
        let shares = order.map { "\(literal($0)) \(counts[literal($0)] ?? 0)" }.joined(separator: ", ")
        var comment = "\(seen): \(shares)"
        guard order.count > 1 else { return FieldFit(generator: "{ constant: \(literal(order[0]))\(faults) }", comment: comment) }
        // Stays: from a message with a new value to the next message with another, per device.
        var stays: [String: [Double]] = [:]
        var cut: [String: [Double]] = [:]
        var pairs = 0
        var changes = 0
        for source in series.sources {
            let points = source.points.compactMap { point -> (Double, String)? in
                guard let value = point.value, value != .null else { return nil }
                return (point.time, literal(value))
            }
            var start = 0
            for index in points.indices.dropFirst() {
                pairs += 1
                guard points[index].1 != points[index - 1].1 else { continue }
                changes += 1
                let stay = points[index].0 - points[start].0
                // The first stay began before the recording did: it is only seen in part.
                if start == 0 { cut[points[start].1, default: []].append(stay) } else { stays[points[start].1, default: []].append(stay) }
                start = index
            }
            if let last = points.last, start < points.count { cut[points[start].1, default: []].append(last.0 - points[start].0) }
        }
        // Values drawn afresh each message change as often as 1 − Σ share² of the time; values
        // that hold for a while change much less often.
        let independent =
            1
            - order.reduce(0.0) { sum, value in
                let share = Double(counts[literal(value)] ?? 0) / Double(max(values.count, 1))
                return sum + share * share
            }
        let flickers = pairs == 0 || stays.isEmpty || Double(changes) > 0.7 * independent * Double(pairs)
        comment += ", changing at \(changes) of \(pairs) messages"
        if !flickers {
            var minimum: [String] = []
            var maximum: [String] = []
            var recorded: [String] = []
            for value in order {
                let key = literal(value)
                let seen = stays[key] ?? cut[key] ?? []
                let shortest = max(seen.min() ?? 1, 0.001)
                // A stay is drawn evenly between min and max: this max keeps the recorded mean.
                let mean = Statistics.mean(seen)
                let longest = max(2 * mean - shortest, shortest)
                minimum.append(RecordingScenario.duration(shortest))
                maximum.append(RecordingScenario.duration(longest))
                let range = RecordingScenario.duration(shortest) + " to " + RecordingScenario.duration(seen.max() ?? shortest)
                recorded.append(key + " " + range + ", mean " + RecordingScenario.duration(mean))
            }
            let list = { (items: [String]) in "[" + items.joined(separator: ", ") + "]" }
            let generator = "{ dwell: { values: \(list(order.map(literal))), min: \(list(minimum)), max: \(list(maximum)) }\(faults) }"
            return FieldFit(generator: generator, comment: comment + "; stays " + recorded.joined(separator: "; "))
        }
        if fallback == "bool" {
            let share = Double(counts["true"] ?? 0) / Double(max(values.count, 1))
            return FieldFit(generator: "{ bool: \(RecordingScenario.estimate(share, significant: 3))\(faults) }", comment: comment)
        }
        let weights = order.map { String(counts[literal($0)] ?? 0) }.joined(separator: ", ")
        return FieldFit(
            generator: "{ choice: { values: [\(order.map(literal).joined(separator: ", "))], weights: [\(weights)] }\(faults) }",
            comment: comment)
    }

    // MARK: Text

    /// At most this many distinct texts make a `choice` or a `dwell`.
    static let maximumChoices = 12

    private static func text(_ series: FieldSeries, texts: [String], seen: String, faults: String) -> FieldFit {
        let distinct = Set(texts)
        if distinct.count == 1 {
            return FieldFit(
                generator: "{ constant: \(RecordingScenario.quoted(texts[0]))\(faults) }",
                comment: "\(seen), always \(RecordingScenario.quoted(texts[0]))")
        }
        if texts.allSatisfy(isISOTime) {
            // As recorded: whole seconds, milliseconds (the generator's own), or more digits.
            let digits = texts.map(fractionDigits).max() ?? 3
            return FieldFit(
                generator: "{ timestamp: iso8601\(digits == 3 ? "" : ", decimals: \(digits)")\(faults) }",
                comment: "\(seen), ISO 8601 times such as \(RecordingScenario.quoted(texts[0]))")
        }
        // A device's own id in its payload: each copy writes its own.
        let ids = series.sources.allSatisfy { source in
            source.points.allSatisfy { point in
                if case .string(let text)? = point.value { text.contains(source.id) } else { true }
            }
        }
        if ids, let example = series.sources.first(where: { !$0.points.isEmpty }),
            case .string(let text)? = example.points.first(where: { $0.value != nil })?.value,
            series.sources.allSatisfy({ source in
                source.points.allSatisfy { point in
                    if case .string(let other)? = point.value {
                        other.replacingAll(source.id, with: "{id}") == text.replacingAll(example.id, with: "{id}")
                    } else {
                        true
                    }
                }
            })
        {
            let template = text.replacingAll(example.id, with: "{id}")
            return FieldFit(
                generator: "{ constant: \(RecordingScenario.quoted(template))\(faults) }",
                comment: "\(seen), the device's id: \(RecordingScenario.quoted(text))")
        }
        if texts.allSatisfy(isUUID) {
            let perDevice = series.sources.allSatisfy { source in Set(source.points.compactMap { $0.value.map(literal) }).count <= 1 }
            return FieldFit(
                generator: "{ uuid: { perDevice: \(perDevice) }\(faults) }",
                comment: "\(seen), UUIDs" + (perDevice ? ", one per device" : ""))
        }
        if distinct.count <= maximumChoices, distinct.count * 2 <= texts.count {
            return states(series, seen: seen, faults: faults, fallback: "choice")
        }
        return FieldFit(
            generator: "{ constant: \(RecordingScenario.quoted(texts[0]))\(faults) }",
            comment: "\(seen), \(distinct.count) different texts: too many to choose from, written as the first")
    }

    /// `2026-12-04T05:30:00Z`, `2026-12-04 05:30:00.123+01:00`: a date and a time.
    static func isISOTime(_ text: String) -> Bool {
        let utf8 = Array(text.utf8)
        guard utf8.count >= 16 else { return false }
        let digits = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15]
        return digits.allSatisfy { utf8[$0] >= UInt8(ascii: "0") && utf8[$0] <= UInt8(ascii: "9") }
            && utf8[4] == UInt8(ascii: "-") && utf8[7] == UInt8(ascii: "-")
            && (utf8[10] == UInt8(ascii: "T") || utf8[10] == UInt8(ascii: " ")) && utf8[13] == UInt8(ascii: ":")
    }

    /// The digits after an ISO time's seconds: 0 for `…T05:30:00Z`, 3 for `…:00.123+01:00`.
    static func fractionDigits(_ text: String) -> Int {
        let utf8 = Array(text.utf8)
        guard utf8.count > 19, utf8[19] == UInt8(ascii: ".") else { return 0 }
        return utf8[20...].prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }.count
    }

    private static func isUUID(_ text: String) -> Bool {
        let utf8 = Array(text.utf8)
        guard utf8.count == 36 else { return false }
        return utf8.indices.allSatisfy { index in
            [8, 13, 18, 23].contains(index) ? utf8[index] == UInt8(ascii: "-") : isHex(utf8[index])
        }
    }

    private static func isHex(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
    }

    /// A scalar as a YAML value of the same type: `21.5`, `true`, `"idle"`.
    static func literal(_ value: RecordedJSON) -> String {
        switch value {
        case .number(let number, let decimals, _): RecordingScenario.number(number, decimals: decimals)
        case .bool(let flag): flag ? "true" : "false"
        case .string(let text): RecordingScenario.quoted(text)
        case .null, .object, .array: "\"\""
        }
    }
}

extension String {
    /// Every occurrence of `target` replaced, without Foundation.
    fileprivate func replacingAll(_ target: String, with replacement: String) -> String {
        guard !target.isEmpty else { return self }
        return split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
