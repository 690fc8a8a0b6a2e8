/// `duration` as `formatSeconds` writes seconds.
package func formatSeconds(_ duration: Duration) -> String {
    formatSeconds(duration / .seconds(1))
}

package func formatSeconds(_ seconds: Double) -> String {
    let tenths = (seconds * 10).rounded()
    return "\(Int(tenths) / 10).\(Int(tenths) % 10)s"
}
