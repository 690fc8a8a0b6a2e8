/// What a `BrokerBridge` tells the connection that uses it, on the loop's thread.
package protocol BrokerBridgeDelegate: AnyObject {
    /// The bridge failed (its TCP, TLS or WebSocket) or the broker closed it, for `reason` (a sentence); the local side
    /// is closed right after, so libmosquitto sees its connection end.
    func bridgeFailed(_ reason: String)
    /// Both sides are closed, whoever closed them. The bridge must not be let go in here.
    func bridgeClosed()
}
