/// A value an event loop owns, on its way across threads: the one way loop-owned state (a
/// connection, a loop's context) leaves its loop. It is `Sendable` whatever the value is, and
/// opens (`value`) only where the loop's state may be touched (`EventLoop.callerOwnsState`): on
/// the loop's thread while it runs, or on the thread that holds the loop before it starts and
/// after it stopped. So the loop-owned classes need not claim `@unchecked Sendable`: the compiler
/// keeps them from crossing threads bare, and this type checks where they are opened.
///
/// The checks are `assert`s: debug builds, the tests', trap on a wrong thread; release builds
/// skip them. Not for the publish path, though: this toolchain inlines no `package` accessor into
/// another module, `@inlinable` or not (objdump finds calls to the unspecialized getter in a
/// release build), so each opening costs a call: a command, a probe or a request crosses, never
/// a message. swift-nio's `NIOLoopBound` is the model. A class is shared by reference, so a copy
/// of the wrapper reaches the same object.
package struct LoopBound<Value>: @unchecked Sendable {
    /// The loop the value belongs to, which any thread may hand jobs to.
    package let loop: EventLoop
    @usableFromInline var held: Value

    /// Binds `value`, which the caller may touch now (see `value`), to `loop`.
    @inlinable
    package init(_ value: Value, on loop: EventLoop, file: StaticString = #fileID, line: UInt = #line) {
        assert(loop.callerOwnsState, "a LoopBound made off the thread of event loop '\(loop.name)'", file: file, line: line)
        self.loop = loop
        held = value
    }

    /// Hands `value` to `loop` from any thread: one the caller gives away (`sending`: nothing it
    /// keeps refers to it), such as a connection made for a running loop, is the loop's from here.
    @inlinable
    package init(handing value: sending Value, to loop: EventLoop) {
        self.loop = loop
        held = value
    }

    /// The value, on its loop's thread, or while the loop does not run (debug builds trap
    /// elsewhere).
    @inlinable
    package var value: Value {
        get {
            assert(loop.callerOwnsState, "a LoopBound opened off the thread of event loop '\(loop.name)'")
            return held
        }
        _modify {
            assert(loop.callerOwnsState, "a LoopBound opened off the thread of event loop '\(loop.name)'")
            yield &held
        }
    }

    /// Runs `job` with the value on the loop's thread, soon, after the jobs handed to it before
    /// (`EventLoop.execute`: for a caller that stops the loop itself, after its last job).
    @inlinable
    package func execute(_ job: @escaping @Sendable (Value) -> Void) {
        loop.execute { job(self.value) }
    }

    /// Runs `job` with the value on the loop's thread, as `EventLoop.submit` does: throws, and
    /// never runs it, once the loop has stopped.
    @inlinable
    package func submit(_ job: @escaping @Sendable (Value) -> Void) throws(EventLoopStopped) {
        try loop.submit { job(self.value) }
    }
}
