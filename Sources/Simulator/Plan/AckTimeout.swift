import Scenario

/// How long a connection's QoS 1/2 messages may wait for their acknowledgement, and what one
/// that waited longer does.
package struct AckTimeout: Sendable, Equatable {
    package var limit: Duration
    package var action: AckTimeoutAction
}
