/// What happens to the ticks that fall while a device's connection is down.
package enum OfflinePolicy: Sendable, Equatable {
    /// Skipped and counted.
    case drop
    /// Kept in order up to the bounds, oldest dropped first, flushed after the next CONNACK.
    case buffer(maxMessages: Int, maxBytes: Int)

    package static let defaultMaxMessages = 1024
    package static let defaultMaxBytes = 64 * 1024 * 1024
}
