import Glibc
import Testing
import TestSupport

/// The process helper, proven on plain system executables since devsim may not be built yet.
@Suite(.tags(.integration), .notUnitOnly) struct DevsimProcessTests {
    @Test func runToCompletionReturnsStatusAndBothStreams() throws {
        let result = try DevsimProcess.runToCompletion(
            executable: "/bin/sh", args: ["-c", "echo out; echo err >&2; exit 3"], timeout: 5)
        #expect(result.status == 3)
        #expect(result.stdout == "out\n")
        #expect(result.stderr == "err\n")
    }

    @Test func environmentOverridesReachTheChild() throws {
        let result = try DevsimProcess.runToCompletion(
            executable: "/bin/sh", args: ["-c", "echo \"$DEVSIM_TEST_VALUE\"; test -n \"$PATH\""],
            env: ["DEVSIM_TEST_VALUE": "forty two"], timeout: 5)
        #expect(result.status == 0, "PATH must still be inherited")
        #expect(result.stdout == "forty two\n")
    }

    @Test func sigtermStopsASleepingChild() throws {
        let child = try DevsimProcess(executable: "/bin/sleep", arguments: ["30"])
        #expect(child.isRunning)
        child.sendSignal(SIGTERM)
        #expect(child.waitUntilExit(timeout: 5) == 128 + SIGTERM)
        #expect(!child.isRunning)
    }

    @Test func timeoutKillsAndReportsNil() throws {
        let start = TestClock.now()
        let result = try DevsimProcess.runToCompletion(executable: "/bin/sleep", args: ["30"], timeout: 0.3)
        #expect(result.status == nil)
        #expect(TestClock.now() - start < 10, "the wait must be bounded")
    }

    @Test func waitForOutputSeesTextBeforeExit() throws {
        let child = try DevsimProcess(executable: "/bin/sh", arguments: ["-c", "echo ready; exec sleep 30"])
        #expect(child.waitForOutput(containing: "ready", timeout: 5))
        #expect(child.isRunning)
        #expect(child.terminate(grace: 2) == 128 + SIGTERM)
    }

    @Test func missingExecutableThrows() {
        #expect(throws: TestSupportError.self) {
            _ = try DevsimProcess(executable: "/nonexistent/devsim")
        }
    }

    @Test func devsimBinaryEnvironmentVariableIsHonoured() throws {
        #expect(try DevsimProcess.locateDevsim(environment: ["DEVSIM_BINARY": "/bin/echo"]) == "/bin/echo")
        #expect(throws: TestSupportError.self) {
            _ = try DevsimProcess.locateDevsim(environment: ["DEVSIM_BINARY": "/nonexistent/devsim"])
        }
    }
}
