/// Backoff between reconnection attempts: `initial` doubling up to `max`.
package struct ReconnectSettings: Sendable, Equatable {
    package var initial: Duration
    package var max: Duration

    package init(initial: Duration = .seconds(1), max: Duration = .seconds(64)) {
        self.initial = initial
        self.max = max
    }
}
