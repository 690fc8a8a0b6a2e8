import Report

extension DeviceConnection {
    /// Each connection the broker accepted counts once in the loop's connection timings.
    func driverConnected(after attempt: ConnectAttempt) {
        context.connectTimings.record(attempt)
    }
}
