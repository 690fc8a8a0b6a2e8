/// The report's `timeline`: `{"intervalSeconds":1,"startedAt":…,"points":[…]}`, each point
/// `{"at","seconds","scheduled","published","acknowledged","unchanged","connectionsUp","errors","latency",
/// "lateness","histograms"}`: `latency` and `lateness` are `Percentiles` (latency absent when
/// nothing was acknowledged), `histograms` the raw ones behind them, as the whole report's are,
/// so shards' timelines merge exactly.
extension Timeline: Codable {
    private enum Key: String, CodingKey {
        case intervalSeconds, startedAt, points
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        self.init(
            intervalSeconds: try container.decode(Double.self, forKey: .intervalSeconds),
            startedAt: try container.decode(Double.self, forKey: .startedAt),
            points: try container.decode([Point].self, forKey: .points))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(intervalSeconds, forKey: .intervalSeconds)
        try container.encode(startedAt, forKey: .startedAt)
        try container.encode(points, forKey: .points)
    }
}

extension Timeline.Point: Codable {
    private enum Key: String, CodingKey {
        case at, seconds, scheduled, published, acknowledged, unchanged, connectionsUp, errors, received, latency, lateness, histograms
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        self.init(at: try container.decode(Double.self, forKey: .at), seconds: try container.decode(Double.self, forKey: .seconds))
        scheduled = try container.decode(Int.self, forKey: .scheduled)
        published = try container.decode(Int.self, forKey: .published)
        acknowledged = try container.decode(Int.self, forKey: .acknowledged)
        unchanged = try container.decodeIfPresent(Int.self, forKey: .unchanged) ?? 0
        connectionsUp = try container.decode(Int.self, forKey: .connectionsUp)
        errors = try container.decode(Int.self, forKey: .errors)
        received = try container.decodeIfPresent(Int.self, forKey: .received) ?? 0
        let histograms = try container.decode(ReportHistograms.self, forKey: .histograms)
        do throws(HistogramDataError) {
            latency = SparseHistogram(try histograms.latency.histogram())
            lateness = SparseHistogram(try histograms.lateness.histogram())
        } catch {
            throw DecodingError.dataCorruptedError(forKey: .histograms, in: container, debugDescription: error.message)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        // Milliseconds, as the report's other times.
        try container.encode(at.thousandths, forKey: .at)
        try container.encode(seconds.thousandths, forKey: .seconds)
        try container.encode(scheduled, forKey: .scheduled)
        try container.encode(published, forKey: .published)
        try container.encode(acknowledged, forKey: .acknowledged)
        try container.encode(unchanged, forKey: .unchanged)
        try container.encode(connectionsUp, forKey: .connectionsUp)
        try container.encode(errors, forKey: .errors)
        // Only with subscriber groups, which a run of devices alone has none of.
        if received > 0 { try container.encode(received, forKey: .received) }
        let latency = self.latency.histogram, lateness = self.lateness.histogram
        try container.encodeIfPresent(latency.isEmpty ? nil : Percentiles(latency), forKey: .latency)
        try container.encode(Percentiles(lateness), forKey: .lateness)
        try container.encode(ReportHistograms(latency: latency, lateness: lateness), forKey: .histograms)
    }
}
