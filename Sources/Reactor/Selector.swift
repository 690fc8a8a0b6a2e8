import CLinux
import Glibc

/// An epoll set and the registrations it serves, owned by one `EventLoop`. Level-triggered: a
/// descriptor that stays readable is reported again until it is read, which is what libmosquitto,
/// reading a packet per call, needs.
///
/// Each registration has a slot and an epoch that changes whenever its descriptor does, and
/// epoll's user data is that pair (`Key`): an event still queued for a descriptor that has since
/// been closed, replaced or removed names an old epoch and is dropped, even when the descriptor's
/// number has been given to another source meanwhile.
final class Selector {
    /// epoll's user data: which registration, and which of its descriptors.
    struct Key: Equatable {
        var slot: UInt32
        var epoch: UInt32

        init(slot: UInt32, epoch: UInt32) {
            self.slot = slot
            self.epoch = epoch
        }

        init(_ data: epoll_data_t) {
            slot = UInt32(truncatingIfNeeded: data.u64 >> 32)
            epoch = UInt32(truncatingIfNeeded: data.u64)
        }

        var data: epoll_data_t { epoll_data_t(u64: UInt64(slot) << 32 | UInt64(epoch)) }
    }

    struct Registration {
        /// Not optional, and `vacant` in a free slot: with Swift 6.3.1 at -Onone, iterating an
        /// array of structs holding an `unowned(unsafe)` optional never ends (a debug build's
        /// loop hung in its first housekeeping; a ten-line program shows it).
        unowned(unsafe) var source: EventSource = Selector.vacant
        var inUse = false
        /// Changes each time the slot is given to a source: tells a handle of its own from a stale one.
        var generation: UInt32 = 0
        /// Changes each time the watched descriptor does, and with the generation: events name it.
        var epoch: UInt32 = 0
        /// The descriptor in the epoll set, or -1.
        var descriptor: Int32 = -1
        var watchesWrite = false
        var watchesRead = true
        /// To be brought up to date before the loop waits again.
        var isPending = false
        /// The registered descriptor was closed: never name it to epoll again (its number may
        /// be someone else's now).
        var descriptorClosed = false
    }

    /// What a free slot holds.
    private static let vacant = Vacant()

    private final class Vacant: EventSource, Sendable {
        var descriptor: Int32 { -1 }
        var wantsWrite: Bool { false }
        func readable(hungUp: Bool) {}
        func registrationFailed(_ error: SystemError) {}
    }

    /// The sources registered now, for the loop's housekeeping.
    var sources: [EventSource] { registrations.filter(\.inUse).map(\.source) }

    let epoll: Int32
    private var registrations: [Registration] = []
    private var freeSlots: [Int] = []
    private var pending: [Int] = []

    init() throws(SystemError) {
        guard let epoll = try systemCall("epoll_create1", { epoll_create1(Int32(EPOLL_CLOEXEC)) }) else {
            throw SystemError(call: "epoll_create1", errno: EAGAIN)
        }
        self.epoll = epoll
    }

    deinit {
        close(epoll)
    }

    /// Adds `source`; its descriptor is watched from the next wait on.
    func add(_ source: EventSource) -> EventLoop.Registration {
        let slot = freeSlots.popLast() ?? registrations.count
        if slot == registrations.count { registrations.append(Registration()) }
        registrations[slot].source = source
        registrations[slot].inUse = true
        registrations[slot].generation &+= 1
        registrations[slot].epoch &+= 1
        markPending(slot)
        return EventLoop.Registration(slot: slot, generation: registrations[slot].generation)
    }

    /// A descriptor that epoll refused, and why.
    struct Failure {
        let source: EventSource
        let descriptor: Int32
        let error: SystemError
    }

    /// Stops watching the registration's descriptor (still open, so it is removed from the
    /// epoll set) and frees its slot; events already queued for it are dropped. Returns the
    /// failure to remove it, for the log: its source is going, and has no use for it.
    @discardableResult
    func remove(_ registration: EventLoop.Registration) -> (descriptor: Int32, error: SystemError)? {
        guard let slot = valid(registration) else { return nil }
        let entry = registrations[slot]
        var failure: (descriptor: Int32, error: SystemError)?
        if entry.descriptor >= 0, !entry.descriptorClosed {
            do { _ = try systemCall("epoll_ctl", { epoll_ctl(epoll, EPOLL_CTL_DEL, entry.descriptor, nil) }) } catch {
                failure = (entry.descriptor, error)
            }
        }
        var emptied = Registration()
        emptied.generation = entry.generation
        emptied.epoch = entry.epoch &+ 1
        emptied.isPending = entry.isPending
        registrations[slot] = emptied
        freeSlots.append(slot)
        return failure
    }

    /// The source's descriptor or its wish to read or write may have changed.
    @inline(__always)
    func update(_ registration: EventLoop.Registration) {
        guard let slot = valid(registration) else { return }
        markPending(slot)
    }

    /// The source's registered descriptor is closed (its number may be reused at once).
    func descriptorClosed(_ registration: EventLoop.Registration) {
        guard let slot = valid(registration) else { return }
        if registrations[slot].descriptor >= 0 {
            registrations[slot].descriptorClosed = true
            registrations[slot].epoch &+= 1
        }
        markPending(slot)
    }

    /// The source of an event, if the event is for its current descriptor.
    @inline(__always)
    func source(for key: Key) -> EventSource? {
        let slot = Int(key.slot)
        guard slot < registrations.count else { return nil }
        let entry = registrations[slot]
        guard entry.epoch == key.epoch, entry.inUse, entry.descriptor >= 0, !entry.descriptorClosed else { return nil }
        return entry.source
    }

    /// Makes the epoll set match each pending source's descriptor and wishes to read and write.
    /// Returns the descriptors epoll refused, for their sources to hear once the table is
    /// consistent (a source may react by changing its registration).
    func applyPending() -> [Failure] {
        guard !pending.isEmpty else { return [] }
        var failures: [Failure] = []
        for slot in pending {
            if let failure = bringUpToDate(slot) { failures.append(failure) }
        }
        pending.removeAll(keepingCapacity: true)
        return failures
    }

    @inline(__always)
    private func markPending(_ slot: Int) {
        if !registrations[slot].isPending {
            registrations[slot].isPending = true
            pending.append(slot)
        }
    }

    @inline(__always)
    private func valid(_ registration: EventLoop.Registration) -> Int? {
        let slot = registration.slot
        guard slot < registrations.count, registrations[slot].inUse,
            registrations[slot].generation == registration.generation
        else { return nil }
        return slot
    }

    /// Returns the source, the descriptor and the error if epoll refused.
    private func bringUpToDate(_ slot: Int) -> Failure? {
        registrations[slot].isPending = false
        guard registrations[slot].inUse else { return nil }
        let source = registrations[slot].source
        var entry = registrations[slot]
        defer { registrations[slot] = entry }
        let descriptor = source.descriptor
        let wantsWrite = descriptor >= 0 && source.wantsWrite
        let wantsRead = descriptor < 0 || source.wantsRead
        do throws(SystemError) {
            if entry.descriptorClosed {
                entry.descriptor = -1
                entry.descriptorClosed = false
            } else if entry.descriptor >= 0, entry.descriptor != descriptor {
                // Replaced while still open: it leaves the set by its number, which is still ours.
                let old = entry.descriptor
                entry.descriptor = -1
                entry.epoch &+= 1
                try control(EPOLL_CTL_DEL, old, nil)
            }
            guard descriptor >= 0 else { return nil }
            if entry.descriptor == descriptor {
                guard entry.watchesWrite != wantsWrite || entry.watchesRead != wantsRead else { return nil }
                var event = self.event(slot, entry, read: wantsRead, write: wantsWrite)
                entry.watchesWrite = wantsWrite
                entry.watchesRead = wantsRead
                try control(EPOLL_CTL_MOD, descriptor, &event)
                return nil
            }
            // A new descriptor, or the number of one closed earlier: the kernel dropped the closed
            // one from the set, unless another descriptor still shares its file (then EEXIST).
            entry.epoch &+= 1
            var event = self.event(slot, entry, read: wantsRead, write: wantsWrite)
            if try !control(EPOLL_CTL_ADD, descriptor, &event, tolerating: EEXIST) {
                try control(EPOLL_CTL_MOD, descriptor, &event)
            }
            entry.descriptor = descriptor
            entry.watchesWrite = wantsWrite
            entry.watchesRead = wantsRead
            return nil
        } catch {
            entry.descriptor = -1
            return Failure(source: source, descriptor: descriptor, error: error)
        }
    }

    private func event(_ slot: Int, _ entry: Registration, read: Bool, write: Bool) -> epoll_event {
        epoll_event(
            events: (read ? EPOLLIN.rawValue : 0) | (write ? EPOLLOUT.rawValue : 0),
            data: Key(slot: UInt32(slot), epoch: entry.epoch).data)
    }

    /// `epoll_ctl`; returns false for the `tolerated` error code, throws any other.
    @discardableResult
    private func control(
        _ operation: Int32, _ descriptor: Int32, _ event: UnsafeMutablePointer<epoll_event>?,
        tolerating tolerated: Int32 = 0
    ) throws(SystemError) -> Bool {
        do {
            return try systemCall("epoll_ctl", { epoll_ctl(epoll, operation, descriptor, event) }) != nil
        } catch  where error.errno == tolerated {
            return false
        }
    }
}
