/// A sensor sample: the `index`-th since the device's clock started, taken `time` seconds after it.
/// Without a sample rate there is one sample per publish, taken at the publish.
package struct SampleInstant: Sendable, Equatable {
    package var index: Int
    package var time: Double

    package init(index: Int, time: Double) {
        self.index = index
        self.time = time
    }
}

/// A publish: its index (0 for the device's first), the latest sample it carries, and when it
/// happens, in seconds since the device's clock started and since the Unix epoch.
package struct PublishInstant: Sendable, Equatable {
    package var index: Int
    package var sample: SampleInstant
    package var elapsed: Double
    package var wallClock: Double

    package init(index: Int, sample: SampleInstant, elapsed: Double, wallClock: Double) {
        self.index = index
        self.sample = sample
        self.elapsed = elapsed
        self.wallClock = wallClock
    }
}
