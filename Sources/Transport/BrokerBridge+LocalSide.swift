import Glibc
import Reactor

/// libmosquitto's side of a bridge: its bytes read into frames toward the broker while the
/// bridge is open and the frames toward the broker leave room, the broker's bytes written back
/// to it.
extension BrokerBridge {
    fileprivate var localWantsRead: Bool { phase == .open && framer.queuedBytes + framer.outbound.count < Self.bufferLimit }
    fileprivate var localWantsWrite: Bool { !towardLocal.isEmpty }

    fileprivate func localReadable() {
        guard let local else { return }
        // Outside `open` the local side is not watched for reading: this is a hang-up,
        // libmosquitto giving up on the attempt (or gone while the broker's bytes wait for it).
        guard phase == .open else {
            debug("libmosquitto hung up " + (phase == .finishing ? "before it had all the broker sent" : "before the bridge was open"))
            return close()
        }
        let count = withUnsafeTemporaryAllocation(byteCount: Self.readSize, alignment: 1) { buffer in
            let count = Glibc.read(local.descriptor, buffer.baseAddress, buffer.count)
            if count > 0 { framer.send(UnsafeRawBufferPointer(rebasing: buffer[..<count])) }
            return count
        }
        if count > 0 {
            flushTowardBroker()
        } else if count == 0 {
            beginDraining("libmosquitto closed its connection")
        } else if errno != EAGAIN && errno != EINTR {
            beginDraining("libmosquitto's connection failed (\(SystemError(call: "read", errno: errno)))")
        }
        changed()
    }

    fileprivate func localWritable() {
        flushTowardLocal()
        changed()
    }

    func flushTowardLocal() {
        guard let local, !towardLocal.isEmpty else { return }
        let written = towardLocal.withUnsafeBytes { Glibc.write(local.descriptor, $0.baseAddress, $0.count) }
        if written > 0 {
            towardLocal.removeFirst(written)
        } else if written < 0, errno != EAGAIN, errno != EINTR {
            debug(
                "\(SystemError(call: "write", errno: errno)) toward libmosquitto: \(towardLocal.count) bytes from the broker "
                    + "not delivered; both sides close")
            return close()
        }
        if phase == .finishing, towardLocal.isEmpty { close() }
    }
}

/// libmosquitto's connection to a bridge, as the bridge's loop sees it.
final class LocalSide: EventSource {
    unowned let bridge: BrokerBridge
    let descriptor: Int32
    var registration: EventLoop.Registration?

    init(bridge: BrokerBridge, descriptor: Int32) {
        self.bridge = bridge
        self.descriptor = descriptor
    }

    var wantsWrite: Bool { bridge.localWantsWrite }
    var wantsRead: Bool { bridge.localWantsRead }
    func readable(hungUp: Bool) { bridge.localReadable() }
    func writable() { bridge.localWritable() }
    func registrationFailed(_ error: SystemError) { bridge.close() }

    func close(loop: EventLoop) {
        if let registration { loop.deregister(registration) }
        registration = nil
        Glibc.close(descriptor)
    }
}
