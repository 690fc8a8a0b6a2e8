import Scenario

/// How close a model's messages are to a recording: per topic (its id level written `{id}`) the
/// median interval between a device's messages, and per payload field the recorded and the
/// generated values' range and mean, or their shares (booleans, texts), or, for what only rises
/// (counters, timestamps), its step a message. The check that an inferred scenario (`devsim
/// sample` of it) looks like the recording it came from, and the README's side-by-side table.
public struct RecordingFit: Sendable {
    /// One topic's median interval, recorded and generated; `nil` where no device sent twice.
    public struct Topic: Sendable {
        public var template: String
        public var recorded: Double?
        public var generated: Double?
    }

    /// One field of one topic's payloads, recorded and generated (`nil`: the generated payloads
    /// never had it).
    public struct Field: Sendable {
        public var template: String
        /// `temperature`, `location.lat`; `value` for a payload that is one value.
        public var path: String
        public var recorded: Summary
        public var generated: Summary?
    }

    /// A field's values in short.
    public struct Summary: Sendable {
        public var count: Int
        /// Numbers: the range and mean. Booleans: the share of `true` as `mean`.
        public var minimum: Double
        public var maximum: Double
        public var mean: Double
        /// Numbers that never go down on any device: the mean step from a message to the next.
        public var step: Double?
        /// Texts and booleans: each value's share, the most common first; none for texts of more
        /// than a few values, which `note` describes.
        public var shares: [(value: String, share: Double)]
        public var isNumber: Bool
        /// Texts of many values: `ISO 8601 times`, `2400 different texts`.
        public var note: String? = nil
    }

    public var topics: [Topic]
    public var fields: [Field]

    public init(recorded: Recording, generated: Recording) {
        let recordedTopics = Self.topics(of: recorded)
        let generatedTopics = Self.topics(of: generated)
        topics = recordedTopics.map { template, series in
            Topic(
                template: template, recorded: Self.interval(series),
                generated: generatedTopics.first { $0.template == template }.flatMap { Self.interval($0.series) })
        }
        fields = recordedTopics.flatMap { template, series in
            let generated = generatedTopics.first { $0.template == template }.map { Self.fields(of: $0.series) } ?? []
            return Self.fields(of: series).map { path, summary in
                Field(template: template, path: path, recorded: summary, generated: generated.first { $0.path == path }?.summary)
            }
        }
    }

    /// What strays more than `tolerance` (a fraction: 0.25) from the recording, in words: an
    /// interval off by more than that share; a generated number outside the recorded range
    /// widened by that share of it, or a mean further than that share of the range from the
    /// recorded; a step off by that share; a value's share off by that much; a field or topic
    /// the generated messages lack. Empty when the model fits.
    public func problems(tolerance: Double) -> [String] {
        var problems: [String] = []
        for topic in topics {
            guard let recorded = topic.recorded else { continue }
            guard let generated = topic.generated else {
                problems.append("\(topic.template): no generated interval, recorded \(Self.seconds(recorded))")
                continue
            }
            if abs(generated - recorded) > tolerance * recorded {
                problems.append("\(topic.template): every \(Self.seconds(generated)), recorded every \(Self.seconds(recorded))")
            }
        }
        for field in fields {
            let name = "\(field.template) \(field.path)"
            guard let generated = field.generated else {
                problems.append("\(name): never generated")
                continue
            }
            let recorded = field.recorded
            if recorded.isNumber != generated.isNumber {
                problems.append("\(name): \(Self.text(generated)), recorded \(Self.text(recorded))")
            } else if let step = recorded.step {
                if abs((generated.step ?? .infinity) - step) > tolerance * abs(step) {
                    problems.append("\(name): \(Self.text(generated)), recorded \(Self.text(recorded))")
                }
            } else if recorded.isNumber {
                let range: Double = max(recorded.maximum - recorded.minimum, abs(recorded.mean) * 1e-6, 1e-9)
                let slack: Double = tolerance * range
                let below: Bool = generated.minimum < recorded.minimum - slack
                let above: Bool = generated.maximum > recorded.maximum + slack
                let offset: Bool = abs(generated.mean - recorded.mean) > slack
                if below || above || offset {
                    problems.append("\(name): \(Self.text(generated)), recorded \(Self.text(recorded))")
                }
            } else if recorded.note != nil || generated.note != nil {
                if recorded.note?.hasPrefix("ISO") == true && generated.note != recorded.note {
                    problems.append("\(name): \(Self.text(generated)), recorded \(Self.text(recorded))")
                }
            } else {
                let generatedShares = Dictionary(generated.shares.map { ($0.value, $0.share) }, uniquingKeysWith: +)
                for (value, share) in recorded.shares {
                    if abs((generatedShares[value] ?? 0) - share) > tolerance {
                        problems.append("\(name): \(Self.text(generated)), recorded \(Self.text(recorded))")
                        break
                    }
                }
            }
        }
        return problems
    }

    /// The side-by-side table, in Markdown: per topic its interval, then each field, recorded
    /// and generated.
    public func table(recordedTitle: String = "recorded", generatedTitle: String = "inferred") -> String {
        var text = "| topic | field | \(recordedTitle) | \(generatedTitle) |\n|---|---|---|---|\n"
        for topic in topics {
            let cell = { (interval: Double?) in interval.map { "every " + Self.seconds($0) } ?? "–" }
            text += "| `\(topic.template)` | (interval) | \(cell(topic.recorded)) | \(cell(topic.generated)) |\n"
            for field in fields where field.template == topic.template {
                let cells = [Self.text(field.recorded), field.generated.map(Self.text) ?? "–"].map {
                    $0.split(separator: "|", omittingEmptySubsequences: false).joined(separator: "\\|")
                }
                text += "| | `\(field.path)` | \(cells[0]) | \(cells[1]) |\n"
            }
        }
        return text
    }

    // MARK: Reading the recordings

    /// Each topic template's messages, device by device.
    private static func topics(of recording: Recording) -> [(template: String, series: [[RecordedMessage]])] {
        var order: [String] = []
        var series: [String: [[RecordedMessage]]] = [:]
        for device in recording.devices() {
            for topic in device.topics {
                let template = device.template(of: topic)
                if series[template] == nil { order.append(template) }
                series[template, default: []].append(device.messages.filter { $0.topic == topic })
            }
        }
        return order.map { ($0, series[$0] ?? []) }
    }

    private static func interval(_ series: [[RecordedMessage]]) -> Double? {
        Statistics.median(series.flatMap { messages in zip(messages.dropFirst(), messages).map { $0.time - $1.time } })
    }

    /// Each field's summary, by its path, in the order first seen.
    private static func fields(of series: [[RecordedMessage]]) -> [(path: String, summary: Summary)] {
        var order: [String] = []
        var values: [String: [[RecordedJSON]]] = [:]
        for (device, messages) in series.enumerated() {
            for message in messages {
                var found: [(String, RecordedJSON)] = []
                switch RecordedPayload(message) {
                case .object(let object): flatten(object, path: "", into: &found)
                case .value(let value): found.append(("value", value))
                case .binary(let size): found.append(("bytes", .number(Double(size), decimals: 0, integer: true)))
                }
                for (path, value) in found {
                    if values[path] == nil {
                        order.append(path)
                        values[path] = []
                    }
                    while values[path, default: []].count <= device { values[path]?.append([]) }
                    values[path]?[device].append(value)
                }
            }
        }
        return order.compactMap { path in summary(values[path] ?? []).map { (path, $0) } }
    }

    private static func flatten(_ value: RecordedJSON, path: String, into found: inout [(String, RecordedJSON)]) {
        guard case .object(let members) = value else {
            if value != .null { found.append((path, value)) }
            return
        }
        for member in members { flatten(member.value, path: path.isEmpty ? member.key : path + "." + member.key, into: &found) }
    }

    private static func summary(_ devices: [[RecordedJSON]]) -> Summary? {
        let all = devices.joined()
        guard !all.isEmpty else { return nil }
        let numbers = all.compactMap { if case .number(let value, _, _) = $0 { value } else { nil } }
        if numbers.count == all.count {
            let perDevice = devices.map { $0.compactMap { if case .number(let value, _, _) = $0 { value } else { nil } } }
            let steps = perDevice.flatMap { values in zip(values.dropFirst(), values).map { $0 - $1 } }
            let rising = !steps.isEmpty && steps.allSatisfy { $0 >= 0 } && steps.contains { $0 > 0 }
            return Summary(
                count: numbers.count, minimum: numbers.min() ?? 0, maximum: numbers.max() ?? 0, mean: Statistics.mean(numbers),
                step: rising ? Statistics.mean(steps) : nil, shares: [], isNumber: true)
        }
        var counts: [String: Int] = [:]
        for value in all { counts[FieldFit.literal(value), default: 0] += 1 }
        if counts.count > FieldFit.maximumChoices {
            let texts = all.compactMap { if case .string(let text) = $0 { text } else { nil } }
            let times = texts.count == all.count && texts.allSatisfy(FieldFit.isISOTime)
            return Summary(
                count: all.count, minimum: 0, maximum: 0, mean: 0, step: nil, shares: [], isNumber: false,
                note: times ? "ISO 8601 times" : "\(counts.count) different values")
        }
        let shares = counts.map { (value: $0.key, share: Double($0.value) / Double(all.count)) }.sorted {
            ($0.share, $1.value) > ($1.share, $0.value)
        }
        return Summary(count: all.count, minimum: 0, maximum: 0, mean: 0, step: nil, shares: shares, isNumber: false)
    }

    // MARK: Writing

    private static func seconds(_ value: Double) -> String {
        RecordingScenario.estimate(value, significant: 3) + " s"
    }

    /// `19.2 to 23.9, mean 21.5`; `+1 a message`; `"idle" 70 %, "busy" 30 %`.
    static func text(_ summary: Summary) -> String {
        if let step = summary.step { return "+\(RecordingScenario.estimate(step, significant: 3)) a message" }
        if let note = summary.note { return note }
        if summary.isNumber {
            let number = { (value: Double) in RecordingScenario.estimate(value) }
            return summary.minimum == summary.maximum
                ? "always \(number(summary.minimum))"
                : "\(number(summary.minimum)) to \(number(summary.maximum)), mean \(number(summary.mean))"
        }
        let shown = summary.shares.prefix(4).map { "\($0.value) \(Int(($0.share * 100).rounded())) %" }
        return shown.joined(separator: ", ") + (summary.shares.count > 4 ? ", … (\(summary.shares.count) values)" : "")
    }
}
