/// A Sparkplug B payload (6.4.16, `Payload`): the message's timestamp, its metrics and the
/// edge node's sequence number. `uuid` and `body` are read, and written when set, though devsim
/// makes none.
package struct SparkplugPayload: Equatable, Sendable {
    /// Milliseconds since the epoch.
    package var timestamp: UInt64?
    package var metrics: [SparkplugMetric]
    /// 0–255 on every message of an edge node but its NDEATH and the commands it is sent.
    package var seq: UInt64?
    package var uuid: String?
    package var body: [UInt8]?

    package init(
        timestamp: UInt64? = nil, metrics: [SparkplugMetric] = [], seq: UInt64? = nil, uuid: String? = nil,
        body: [UInt8]? = nil
    ) {
        self.timestamp = timestamp
        self.metrics = metrics
        self.seq = seq
        self.uuid = uuid
        self.body = body
    }

    /// Writes the payload: timestamp, metrics, seq, uuid, body, in the schema's order.
    package func write(into buffer: inout PayloadBuffer) {
        if let timestamp { SparkplugWriter.writeTimestamp(timestamp, into: &buffer) }
        for metric in metrics {
            SparkplugWriter.writeMetric(
                name: metric.name, alias: metric.alias, timestamp: metric.timestamp, dataType: metric.dataType ?? .unknown,
                writesDataType: metric.dataType != nil, value: metric.isNull ? nil : metric.value, into: &buffer)
        }
        if let seq { SparkplugWriter.writeSeq(seq, into: &buffer) }
        if let uuid { ProtobufWriter.writeStringField(SparkplugWriter.Field.uuid, uuid, into: &buffer) }
        if let body {
            body.withUnsafeBytes { ProtobufWriter.writeBytesField(SparkplugWriter.Field.body, $0, into: &buffer) }
        }
    }

    /// The payload's bytes.
    package var encoded: [UInt8] {
        var buffer = PayloadBuffer()
        write(into: &buffer)
        return buffer.bytes
    }
}
