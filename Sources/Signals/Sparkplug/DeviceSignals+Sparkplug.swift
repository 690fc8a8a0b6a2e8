/// A device's payloads as a Sparkplug device's: the timestamp and metrics of its DBIRTH and
/// DDATA. The sequence number is its edge node's, which appends it: a payload's fields may come in
/// any order.
extension DeviceSignals {
    /// Makes the device a Sparkplug device whose metrics take aliases from `firstAlias` on: before
    /// its first birth.
    package func useSparkplug(firstAlias: UInt64, reporting: SparkplugReporting) {
        sparkplug = SparkplugDeviceMetrics(fields: fields, firstAlias: firstAlias, reporting: reporting)
    }

    /// Its metrics' names, in alias order; none before `useSparkplug`.
    package var sparkplugMetricNames: [String] { sparkplug?.names ?? [] }

    /// Appends a DBIRTH's timestamp and metrics (every one, named, aliased and typed).
    package func encodeSparkplugBirth(elapsed: Double, wallClock: Double, into buffer: inout PayloadBuffer) {
        guard let sparkplug else { preconditionFailure("encodeSparkplugBirth before useSparkplug") }
        let instant = nextInstant(elapsed: elapsed, wallClock: wallClock)
        let timestamp = Self.milliseconds(wallClock)
        SparkplugWriter.writeTimestamp(timestamp, into: &buffer)
        sparkplug.writeBirth(at: instant, timestamp: timestamp, into: &buffer)
        noteIntegrals(elapsed)
    }

    /// Appends a DDATA's timestamp and metrics by alias, as its reporting picks them; how many
    /// metrics it wrote. With none, the caller sends nothing.
    package func encodeSparkplugData(elapsed: Double, wallClock: Double, into buffer: inout PayloadBuffer) -> Int {
        guard let sparkplug else { preconditionFailure("encodeSparkplugData before useSparkplug") }
        let instant = nextInstant(elapsed: elapsed, wallClock: wallClock)
        let timestamp = Self.milliseconds(wallClock)
        SparkplugWriter.writeTimestamp(timestamp, into: &buffer)
        let written = sparkplug.writeData(at: instant, timestamp: timestamp, into: &buffer)
        noteIntegrals(elapsed)
        return written
    }

    /// The datatype its last DBIRTH announced for `metric`, found by alias or name.
    package func sparkplugBirthType(of metric: SparkplugMetric) -> SparkplugDataType? {
        sparkplug?.birthType(of: metric)
    }

    /// One of its payloads as a person reads it, its metrics by name (`SparkplugPayload.text`);
    /// what protobuf cannot read, in hex.
    package func sparkplugText(_ bytes: [UInt8]) -> String {
        guard let payload = try? SparkplugDecoder.decode(bytes, birthType: { self.sparkplug?.birthType(of: $0) }) else {
            return bytes.map { String($0, radix: 16) }.joined(separator: " ")
        }
        return payload.text(names: sparkplug?.namesByAlias ?? [:])
    }

    /// Seconds since the epoch as Sparkplug's milliseconds; before the epoch (never, but a
    /// virtual clock may start anywhere) as 0.
    package static func milliseconds(_ wallClock: Double) -> UInt64 {
        UInt64(clamping: Int64(exactly: (Swift.max(wallClock, 0) * 1000).rounded(.down)) ?? 0)
    }
}
