import Report

/// What a run needs beside its work for as long as the work lasts: the HTTP endpoint, systemd's
/// notifications, the signal handlers. A `ServiceGroup` starts its services in the order it is
/// given them and stops them in reverse, as swift-service-lifecycle's services are run.
public protocol RunService: AnyObject, Sendable {
    /// Starts, on the group's thread; a throw ends the group before its work begins. `group`
    /// is where the service asks for the work's end or a reload (a signal).
    func start(in group: ServiceGroup) throws
    /// Stops, once; the work has ended (or never began).
    func stop()
    /// The work is about to be reloaded (SIGHUP), and has been, with what the reload did.
    func reloading()
    func reloaded(_ reload: Reload)
}

extension RunService {
    public func reloading() {}
    public func reloaded(_ reload: Reload) {}
}
