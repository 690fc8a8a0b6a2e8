import Foundation
import Glibc
import Testing
import TestSupport

/// Issue 13, item 7: systemd's Type=notify, with the test as systemd: a datagram socket named by
/// NOTIFY_SOCKET, read as sd_notify writes to it.
@Suite(.tags(.integration), .notUnitOnly) struct SystemdNotifyTests {
    /// A bound Unix datagram socket, and every message it has received.
    final class NotifySocket {
        let path: String
        let descriptor: Int32

        init() throws {
            path =
                FileManager.default.temporaryDirectory.appendingPathComponent("devsim-notify-\(getpid())-\(UUID().uuidString.prefix(8))")
                .path
            descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            try #require(bound == 0, "bind \(path)")
        }

        deinit {
            close(descriptor)
            unlink(path)
        }

        func read() -> [String] {
            var messages: [String] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = recv(descriptor, &buffer, buffer.count, 0)
                if count <= 0 { return messages }
                messages.append(String(decoding: buffer[..<count], as: UTF8.self))
            }
        }
    }

    @Test func readyOnceTheConnectionsAreUpThenStatusWatchdogAndStopping() throws {
        let broker = try MosquittoBroker()
        broker.pause()
        let notify = try NotifySocket()
        let file = try RunFiles.scenario("notify.yaml", RunFiles.oneDevice)
        defer { RunFiles.removeFolder(of: file) }
        let devsim = try DevsimRun.start(file, port: broker.port, environment: ["NOTIFY_SOCKET": notify.path, "WATCHDOG_USEC": "2000000"])
        TestClock.sleep(2.5)
        var messages = notify.read()
        #expect(!messages.isEmpty && messages.allSatisfy { !$0.contains("READY=1") }, "no CONNACK, not ready: \(messages)")
        #expect(messages.contains { $0.contains("STATUS=connections 0/1 up") }, "\(messages)")
        broker.resume()
        #expect(devsim.waitForOutput(containing: " connected", inStderr: true, timeout: 15), "\(devsim.stderr)")
        TestClock.sleep(2.5)
        messages += notify.read()
        // A reload (systemctl reload) is framed by RELOADING=1, with its monotonic time, and READY=1.
        devsim.sendSignal(SIGHUP)
        #expect(devsim.waitForOutput(containing: "reloaded: unchanged d", inStderr: true, timeout: 10), "\(devsim.stderr)")
        TestClock.sleep(0.5)
        // The status goes on once a second between them.
        let reload = notify.read()
        let reloading = reload.firstIndex { $0.hasPrefix("RELOADING=1\nMONOTONIC_USEC=") }
        #expect(reloading.map { reload[$0...].contains("READY=1") } == true, "\(reload)")
        #expect(devsim.terminate(grace: 10) == 0, "\(devsim.stderr)")
        messages += notify.read()
        let ready = messages.filter { $0.contains("READY=1") }
        #expect(ready.count == 1, "READY=1 once: \(messages)")
        #expect(ready.first?.contains("STATUS=connections 1/1 up") == true, "\(ready)")
        #expect(messages.contains { $0.contains("WATCHDOG=1") }, "WATCHDOG_USEC is set: \(messages)")
        #expect(messages.last == "STOPPING=1", "\(messages)")
    }
}
