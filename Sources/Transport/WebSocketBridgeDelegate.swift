/// What a `WebSocketBridge` tells the connection that uses it, on the loop's thread.
package protocol WebSocketBridgeDelegate: AnyObject {
    /// The WebSocket failed or the broker closed it, for `reason` (a sentence); the local side
    /// is closed right after, so libmosquitto sees its connection end.
    func bridgeFailed(_ reason: String)
    /// Both sides are closed, whoever closed them. The bridge must not be let go in here.
    func bridgeClosed()
}
