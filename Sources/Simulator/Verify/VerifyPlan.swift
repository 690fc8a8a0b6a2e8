import Glibc
import MQTT
import Scenario
import Signals

/// What `run --verify` needs to know of a device group: the topic filter that catches its
/// devices' messages and where in a payload the sequence number and send time are written.
///
/// Payloads are scanned, not parsed: the reader looks for the first `"seq":` in the bytes (JSON
/// styles: milkcocoa, flat, a field nested in an object) or, for the `template` style, the first
/// `seq=` (so a template must write the field as `seq={{seq}}`, InfluxDB-style; CSV columns
/// cannot be read), and reads the integer after it. No allocation per message.
public struct VerifyPlan: Sendable {
    /// The group's topic template with every level holding a placeholder replaced by `+`.
    package var topicFilter: String
    public var qos: QoS
    /// `"seq":` (or `seq=`), `nil` when the payload has no counter of that name.
    var sequenceKey: [UInt8]?
    /// The counter's `start` and `step`: value = start + step × tick index.
    var sequenceStart: Int64 = 0
    var sequenceStep: Int64 = 1
    /// `"ts":` (or `ts=`), `nil` when the payload has no numeric timestamp of that name.
    var timestampKey: [UInt8]?
    /// Nanoseconds per unit of the timestamp.
    var timestampScale: Int64 = 1
    /// A Sparkplug group's: its payloads are protobuf, their seq the edge node's, read per node
    /// (`SparkplugSeqTracker`) with their timestamp (`SparkplugHeader`), not per device.
    package var isSparkplug = false

    /// Whether a device's own counter is read, a JSON payload's.
    package var readsSequence: Bool { sequenceKey != nil }
    package var readsTimestamp: Bool { timestampKey != nil || isSparkplug }

    public init(group: DeviceGroup) {
        topicFilter = VerifyPlan.topicFilter(group.topic.source)
        qos = group.qos
        if let sparkplug = group.sparkplug {
            // Each node's messages are watched by the node's own filter (`SparkplugTopic.nodeFilter`).
            topicFilter = "\(SparkplugTopic.namespace)/\(sparkplug.groupID)/#"
            isSparkplug = true
            return
        }
        let names = group.verify ?? VerifyFields()
        let isTemplate = group.payload.style == .template && group.payload.template != nil
        func key(_ name: String) -> [UInt8] {
            isTemplate ? Array(name.utf8) + [UInt8(ascii: "=")] : Array("\"\(name)\":".utf8)
        }
        // A template that does not write `name={{name}}` (a CSV line, or JSON of its own) has
        // nothing the scan can find: the field is there, but not readable.
        func readable(_ name: String) -> Bool {
            guard isTemplate, let segments = group.payload.template?.segments else { return true }
            return zip(segments, segments.dropFirst()).contains { before, segment in
                guard case .text(let text) = before, case .placeholder(let placeholder) = segment else { return false }
                return placeholder == name && text.hasSuffix("\(name)=")
            }
        }
        if let counter = VerifyFields.field(named: names.sequence, in: group.payload.fields)?.generator as? CounterRecipe,
            readable(names.sequence),
            counter.shape == nil, counter.start.rounded() == counter.start, counter.step.rounded() == counter.step, counter.step != 0,
            abs(counter.start) < 9e15, abs(counter.step) < 9e15
        {
            sequenceKey = key(names.sequence)
            sequenceStart = Int64(counter.start)
            sequenceStep = Int64(counter.step)
        }
        if let timestamp = VerifyFields.field(named: names.timestamp, in: group.payload.fields)?.generator as? TimestampRecipe,
            readable(names.timestamp)
        {
            switch timestamp.unit {
            case .seconds: timestampScale = 1_000_000_000
            case .milliseconds: timestampScale = 1_000_000
            case .microseconds: timestampScale = 1_000
            case .nanoseconds: timestampScale = 1
            case .iso8601: break
            }
            if timestamp.unit != .iso8601 { timestampKey = key(names.timestamp) }
        }
    }

    /// `app/{id}/push` → `app/+/push`: each level holding a `{…}` placeholder becomes `+`.
    package static func topicFilter(_ template: String) -> String {
        template.split(separator: "/", omittingEmptySubsequences: false).map { level in
            guard let open = level.firstIndex(of: "{"), level[open...].contains("}") else { return String(level) }
            return "+"
        }.joined(separator: "/")
    }

    /// Whether `filter` (with `+` and `#`) matches `topic`, as a broker decides it.
    public static func filter(_ filter: String, matches topic: String) -> Bool {
        TopicFilter.filter(filter, matches: topic)
    }

    /// The tick index written in `payload`, `nil` if it has none (or not one of ours).
    func sequence(in payload: UnsafeRawBufferPointer) -> Int64? {
        guard let sequenceKey, let value = Self.integer(after: sequenceKey, in: payload) else { return nil }
        let offset = value &- sequenceStart
        guard offset % sequenceStep == 0 else { return nil }
        return offset / sequenceStep
    }

    /// The send time written in `payload`, in nanoseconds since the epoch.
    func timestamp(in payload: UnsafeRawBufferPointer) -> Int64? {
        guard let timestampKey, let value = Self.integer(after: timestampKey, in: payload) else { return nil }
        let (product, overflow) = value.multipliedReportingOverflow(by: timestampScale)
        return overflow ? nil : product
    }

    /// Where `key` first occurs in `payload`: `memchr` to each candidate first byte, then
    /// `memcmp`.
    static func find(_ key: [UInt8], in payload: UnsafeRawBufferPointer) -> Int? {
        guard let base = payload.baseAddress, let first = key.first, payload.count >= key.count else { return nil }
        return key.withUnsafeBytes { key -> Int? in
            var offset = 0
            let last = payload.count - key.count
            while offset <= last {
                guard let hit = memchr(base + offset, Int32(first), last - offset + 1) else { return nil }
                let position = base.distance(to: UnsafeRawPointer(hit))
                if memcmp(base + position, key.baseAddress!, key.count) == 0 { return position }
                offset = position + 1
            }
            return nil
        }
    }

    /// The integer right after the first occurrence of `key` (spaces allowed between), if any.
    static func integer(after key: [UInt8], in payload: UnsafeRawBufferPointer) -> Int64? {
        guard let start = find(key, in: payload) else { return nil }
        var index = start + key.count
        while index < payload.count, payload[index] == UInt8(ascii: " ") { index += 1 }
        var negative = false
        if index < payload.count, payload[index] == UInt8(ascii: "-") {
            negative = true
            index += 1
        }
        var value: Int64 = 0
        var digits = 0
        while index < payload.count, case let byte = payload[index], byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
            let (shifted, o1) = value.multipliedReportingOverflow(by: 10)
            let (added, o2) = shifted.addingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
            guard !o1, !o2 else { return nil }
            value = added
            digits += 1
            index += 1
        }
        guard digits > 0 else { return nil }
        return negative ? -value : value
    }
}
