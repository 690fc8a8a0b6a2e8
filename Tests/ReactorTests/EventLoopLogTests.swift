import Glibc
import Logging
import Reactor
import Synchronization
import Testing

/// A descriptor epoll cannot watch (/dev/null: `EPERM`), as a source that hears why.
private final class Unwatchable: EventSource, @unchecked Sendable {
    let descriptor = open("/dev/null", O_RDONLY | O_CLOEXEC)
    var wantsWrite: Bool { false }
    let refusals = Locked<[SystemError]>([])

    deinit { close(descriptor) }

    func readable(hungUp: Bool) {}
    func registrationFailed(_ error: SystemError) { refusals.withLock { $0.append(error) } }
}

/// Issue 26, item 5: the loop says what it sees, at debug level, to the logger it was given.
@Suite struct EventLoopLogTests {
    /// The lines a loop logs at `level` and above while a source with a descriptor epoll refuses joins it.
    private func linesWhileRefusing(at level: Logger.Level) throws -> (lines: [String], source: Unwatchable) {
        let lines = Locked<[String]>([])
        let loop = try EventLoop(name: "refusing", logger: Logger(minimumLevel: level) { line in lines.withLock { $0.append(line) } })
        try loop.start()
        defer { loop.stop() }
        let source = Unwatchable()
        let registration = Locked<EventLoop.Registration?>(nil)
        loop.execute { registration.withLock { $0 = loop.register(source) } }
        for _ in 0..<500 where source.refusals.withLock(\.isEmpty) { usleep(10_000) }
        loop.execute { registration.withLock { $0.map(loop.deregister) } }
        return (lines.withLock { $0 }, source)
    }

    @Test func aDescriptorEpollRefusesIsNamedAtDebugLevelAndItsSourceHearsWhy() throws {
        let (lines, source) = try linesWhileRefusing(at: .debug)
        #expect(source.refusals.withLock { $0.map(\.errno) } == [EPERM])
        let line = lines.first { $0.contains("cannot watch descriptor \(source.descriptor): epoll_ctl:") }
        #expect(line?.contains(" debug devsim: loop=refusing ") == true, "\(lines)")
    }

    @Test func atTheDefaultLevelTheLoopSaysNothingOfIt() throws {
        let (lines, source) = try linesWhileRefusing(at: .info)
        #expect(source.refusals.withLock { $0.count } == 1)
        #expect(lines.isEmpty)
    }
}
