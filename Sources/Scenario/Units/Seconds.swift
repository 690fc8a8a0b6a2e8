/// Seconds as devsim's messages and logs write them, to the tenth: `1.5s`, `64.0s`. Here, in
/// the lowest module that every writer of them (the fleet, the report, the command line)
/// imports, beside `Durations`, which reads what people write.
package func formatSeconds(_ seconds: Double) -> String {
    let tenths = (seconds * 10).rounded()
    return "\(Int(tenths) / 10).\(Int(tenths) % 10)s"
}

/// `duration` as `formatSeconds` writes seconds.
package func formatSeconds(_ duration: Duration) -> String {
    formatSeconds(duration / .seconds(1))
}
