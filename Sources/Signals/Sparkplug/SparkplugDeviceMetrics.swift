/// A device's fields as the metrics of a Sparkplug device: named by their path through the groups
/// (`location/lat`, Sparkplug's folders), aliased from `firstAlias` on in the payload's order, typed
/// by the DBIRTH that announces them. Remembers what the host was last told of each, for report by
/// exception.
final class SparkplugDeviceMetrics {
    private struct Metric {
        let name: String
        let alias: UInt64
        let field: FieldEncoder
        /// As the last birth announced it: data converts its values to it.
        var dataType: SparkplugDataType
        /// What the host holds since the last birth or data message; nil for a null.
        var sent: SparkplugValue?
    }

    private var metrics: [Metric]
    let reporting: SparkplugReporting

    init(fields: FieldList, firstAlias: UInt64, reporting: SparkplugReporting) {
        self.reporting = reporting
        var alias = firstAlias
        metrics = Self.leaves(fields).map { name, field in
            defer { alias += 1 }
            return Metric(name: name, alias: alias, field: field, dataType: field.sparkplugDataType, sent: nil)
        }
    }

    var names: [String] { metrics.map(\.name) }

    var namesByAlias: [UInt64: String] { Dictionary(uniqueKeysWithValues: metrics.map { ($0.alias, $0.name) }) }

    /// The datatype its last birth announced for `metric`, found by alias or name.
    func birthType(of metric: SparkplugMetric) -> SparkplugDataType? {
        metrics.first { $0.alias == metric.alias || ($0.name == metric.name && metric.name != nil) }?.dataType
    }

    /// Every field made by a generator, by its path through the groups.
    private static func leaves(_ list: FieldList, _ prefix: String = "") -> [(String, FieldEncoder)] {
        list.fields.flatMap { field in
            field.isGroup ? leaves(field.members, prefix + field.name + "/") : [(prefix + field.name, field)]
        }
    }

    /// A DBIRTH's metrics: every one with its name, alias, datatype, timestamp and value (a null
    /// where the field drops out: a birth announces them all).
    func writeBirth(at instant: PublishInstant, timestamp: UInt64, into buffer: inout PayloadBuffer) {
        for index in metrics.indices {
            let reading = metrics[index].field.sparkplugReading(at: instant) ?? .null
            if let dataType = reading.dataType { metrics[index].dataType = dataType }
            metrics[index].sent = reading.value
            SparkplugWriter.writeMetric(
                name: metrics[index].name, alias: metrics[index].alias, timestamp: timestamp, dataType: metrics[index].dataType,
                value: reading.value, into: &buffer)
        }
    }

    /// A DDATA's metrics by alias alone, as `reporting` picks them; how many it wrote (none: a
    /// report by exception with nothing to say).
    func writeData(at instant: PublishInstant, timestamp: UInt64, into buffer: inout PayloadBuffer) -> Int {
        var written = 0
        for index in metrics.indices {
            guard let reading = metrics[index].field.sparkplugReading(at: instant) else { continue }
            if case .byException(let deadband) = reporting, !Self.differs(reading.value, from: metrics[index].sent, by: deadband) {
                continue
            }
            metrics[index].sent = reading.value
            SparkplugWriter.writeMetric(
                name: nil, alias: metrics[index].alias, timestamp: timestamp, dataType: metrics[index].dataType,
                writesDataType: false, value: reading.value, into: &buffer)
            written += 1
        }
        return written
    }

    /// Whether `value` is news to a host that holds `sent`: a number moved by more than
    /// `deadband`, anything else changed at all.
    static func differs(_ value: SparkplugValue?, from sent: SparkplugValue?, by deadband: Double) -> Bool {
        switch (value, sent) {
        case (.double(let now)?, .double(let then)?):
            if now.isNaN || then.isNaN { return now.isNaN != then.isNaN }
            return abs(now - then) > deadband
        case (.int(let now)?, .int(let then)?):
            return abs(Double(now) - Double(then)) > deadband
        default:
            return value != sent
        }
    }
}

extension PayloadSpec {
    /// The fields' names as a Sparkplug device's metrics (`SparkplugDeviceMetrics`), in alias
    /// order: every field made by a generator, by its path through the groups, `location/lat`.
    package var sparkplugMetricNames: [String] {
        func leaves(_ fields: [FieldSpec], _ prefix: String) -> [String] {
            fields.flatMap { field in
                if case .group(let members) = field.content { return leaves(members, prefix + field.name + "/") }
                return [prefix + field.name]
            }
        }
        return leaves(fields, "")
    }
}
