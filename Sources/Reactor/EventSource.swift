/// Something with a file descriptor that an `EventLoop` watches: an MQTT client's socket, a
/// listening socket, a WebSocket bridge, libmicrohttpd's epoll descriptor. It joins a loop with
/// `EventLoop.register(_:)` and is then called on the loop's thread only.
///
/// The descriptor may change (a client reconnects with a new socket) or go (-1): the source says
/// so with `EventLoop.update(_:)`, or `descriptorClosed(_:)` when the old one was closed, whose
/// number may already belong to someone else.
package protocol EventSource: AnyObject {
    /// The descriptor to watch now, or -1 for none.
    var descriptor: Int32 { get }
    /// Whether to be told when the descriptor can be written.
    var wantsWrite: Bool { get }
    /// Whether to be told when the descriptor can be read: false holds back what comes in (a
    /// bridge whose far side is backed up), as the loop is level-triggered. A hang-up or an
    /// error is still told, through `readable(hungUp: true)`.
    var wantsRead: Bool { get }
    /// The descriptor can be read, or hung up or failed (`hungUp`: `EPOLLHUP`, `EPOLLERR`),
    /// which reading shows.
    func readable(hungUp: Bool)
    /// The descriptor can be written.
    func writable()
    /// About once a second, whatever the descriptor does: keepalives, timeouts.
    func housekeeping(now: UInt64)
    /// The loop could not watch the descriptor (`epoll_ctl` failed): the source hears nothing
    /// more of it until it changes.
    func registrationFailed(_ error: SystemError)
}

extension EventSource {
    package var wantsRead: Bool { true }
    package func writable() {}
    package func housekeeping(now: UInt64) {}
}
