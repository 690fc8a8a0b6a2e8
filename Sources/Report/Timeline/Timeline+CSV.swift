extension Timeline {
    /// The CSV columns, in order: times in seconds, latencies in milliseconds.
    public static let csvColumns = [
        "at_seconds", "seconds", "scheduled", "published", "acknowledged", "connections_up", "errors",
        "latency_p50_ms", "latency_p99_ms", "lateness_p50_ms", "lateness_p99_ms", "received",
    ]

    /// One header line and a line per point (`--report-format csv`), RFC 4180 with `\r\n`
    /// endings; a latency cell is empty for an interval in which nothing was acknowledged.
    public var csv: String {
        var text = Self.csvColumns.joined(separator: ",") + "\r\n"
        for point in points {
            let latency = point.latency.histogram, lateness = point.lateness.histogram
            func ms(_ histogram: Histogram, _ p: Double) -> String {
                histogram.isEmpty ? "" : "\((Double(histogram.percentile(p)) / 1000).rounded() / 1000)"
            }
            let cells = [
                "\(point.at.thousandths)", "\(point.seconds.thousandths)", "\(point.scheduled)",
                "\(point.published)", "\(point.acknowledged)", "\(point.connectionsUp)", "\(point.errors)",
                ms(latency, 50), ms(latency, 99), ms(lateness, 50), ms(lateness, 99), "\(point.received)",
            ]
            text += cells.joined(separator: ",") + "\r\n"
        }
        return text
    }
}
