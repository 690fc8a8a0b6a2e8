import Dispatch
import Reactor
import Testing

/// What a loop owns, as the tests hand it around: a class that is not `Sendable`.
private final class Tally {
    var count = 0
    var onItsLoop = 0
}

/// Issue 39, item 5: loop-owned state crosses threads inside a `LoopBound`, which opens on its
/// loop's thread while the loop runs, and for the loop's holder before it starts and after it
/// stopped; anywhere else, debug builds trap.
@Suite struct LoopBoundTests {
    /// Whether this build checks `assert`s: the traps are a debug build's only.
    static let assertsAreChecked: Bool = {
        var checked = false
        assert(
            {
                checked = true
                return true
            }())
        return checked
    }()

    @Test func itOpensForTheLoopsHolderBeforeTheStartOnTheLoopWhileItRunsAndAfterTheStop() throws {
        let loop = try EventLoop(name: "bound")
        let bound = LoopBound(Tally(), on: loop)
        bound.value.count += 1
        try loop.start()
        let ran = DispatchSemaphore(value: 0)
        bound.execute { tally in
            tally.count += 1
            if loop.inEventLoop { tally.onItsLoop += 1 }
            ran.signal()
        }
        ran.wait()
        loop.stop()
        #expect(bound.value.count == 2)
        #expect(bound.value.onItsLoop == 1)
    }

    @Test func aValueHandedOverFromAnotherThreadIsTheLoopsFromThere() throws {
        let loop = try EventLoop(name: "handed")
        try loop.start()
        let handed = LoopBound(handing: Tally(), to: loop)
        let ran = DispatchSemaphore(value: 0)
        handed.execute { tally in
            tally.count += 1
            ran.signal()
        }
        ran.wait()
        loop.stop()
        #expect(handed.value.count == 1)
    }

    @Test(.enabled(if: assertsAreChecked)) func openingItOffTheLoopWhileItRunsTraps() async {
        await #expect(processExitsWith: .failure) {
            let loop = try EventLoop(name: "elsewhere")
            let bound = LoopBound(Tally(), on: loop)
            try loop.start()
            bound.value.count += 1
        }
    }

    @Test(.enabled(if: assertsAreChecked)) func bindingAValueOffTheLoopWhileItRunsTraps() async {
        await #expect(processExitsWith: .failure) {
            let loop = try EventLoop(name: "elsewhere")
            try loop.start()
            _ = LoopBound(Tally(), on: loop)
        }
    }
}
