import Foundation
import Simulator
import Testing
import TestSupport

/// Review of issue 29, part C: a reload's source addresses (`broker.bind`) are checked as the
/// run's start checks them; otherwise a reloaded address not of this machine replaced every
/// connection with one that never connects.
@Suite struct ReloadBindTests {
    private static let meter = ScenarioText(group: "meter", topic: "rb/{index}", publish: "1/s").text

    @Test func aReloadedSourceAddressNotOfThisMachineIsRefused() throws {
        // Nothing connects: any port.
        let harness = try FleetHarness(Self.meter, port: 1883, settings: RunSettings(statsInterval: nil))
        let bound = try scenario(yaml: "broker: { bind: 192.0.2.1 }\n" + Self.meter)
        let reload = harness.fleet.reload { _ in [bound] }
        #expect(
            reload.error?.hasPrefix("test.yaml:1:17: broker.bind: cannot bind to 192.0.2.1: it is not an address of this machine")
                == true, "\(reload)")
    }
}
