import Foundation
import Testing

/// Which tests run: all of them (CI, and the default), or with `DEVSIM_TESTS=unit` the unit tests
/// alone, which need no broker, no built binary and no root, and take seconds.
public enum TestScope {
    public static let unitOnly = ProcessInfo.processInfo.environment["DEVSIM_TESTS"] == "unit"
}

extension Tag {
    /// Runs a real broker (mosquitto, amqtt), the scripted server, the built devsim, or the
    /// independent Sparkplug implementation (Python's protobuf, scripts/install-sparkplug.sh).
    @Tag public static var integration: Self
    /// Needs root: a network namespace of its own, iptables, tc.
    @Tag public static var root: Self
}

extension Trait where Self == ConditionTrait {
    /// Skipped with `DEVSIM_TESTS=unit`; goes with `.tags(.integration)` or `.tags(.root)`.
    public static var notUnitOnly: Self {
        .enabled(if: !TestScope.unitOnly, "DEVSIM_TESTS=unit runs the unit tests alone")
    }
}
