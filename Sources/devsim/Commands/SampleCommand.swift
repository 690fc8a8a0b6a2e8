import FoundationEssentials
import Scenario
import Simulator

/// `devsim sample`: the first few ticks of the first device of every device group, on the dry
/// run's virtual clock, in a form made for reading:
///
/// ```
/// seed 42 (random; --seed 42 shows these values again)
///
/// room  scenarios/building.yaml:14:5  12 devices, 1 every 5s, qos 1
///   room-1 → building/room-1/climate
///     +0.000s  {"params":{"temperature":21.4}}
///     +5.000s  {"params":{"temperature":21.5}}
/// ```
///
/// Times count from the device's first CONNACK (its `jitter` delay included). The payloads are
/// those a run with the same seed publishes for that device.
enum SampleCommand {
    static func run(
        _ options: SampleOptions, environment: [String: String],
        output: (String) -> Void, errors: (String) -> Void
    ) -> ExitCode {
        guard let scenarios = ScenarioFiles.load(options.scenarios, environment: environment, errors: errors) else {
            return .usage
        }
        let seed = options.seed ?? UInt64.random(in: 0...UInt64.max)
        let settings = RunSettings(seed: seed)
        guard ScenarioFiles.checkIDs(FleetPlan(scenarios: scenarios, settings: settings), errors: errors) else {
            return .usage
        }
        var text = "seed \(seed)" + (options.seed == nil ? " (random; --seed \(seed) shows these values again)" : "") + "\n"
        let wallStart = WallTime.now().secondsSinceEpoch
        for scenario in scenarios {
            let plan = FleetPlan(scenarios: [scenario], settings: settings)
            for device in Sample.firstDevices(of: plan, seed: seed, count: options.count, wallStart: wallStart) {
                let group = scenario.groups.first { $0.name == device.plan.group }
                text += "\n" + header(device.plan, group: group, file: scenario.file) + "\n"
                text += "  \(device.plan.id) → \(device.plan.topic)\n"
                // `publish: max` has no schedule, only an order: its ticks are numbered.
                let times =
                    device.plan.perSecond.isFinite
                    ? device.ticks.map { "+" + Text.fixed($0.seconds, decimals: 3) + "s" }
                    : device.ticks.indices.map { "#\($0 + 1)" }
                let width = times.map(\.count).max() ?? 0
                for (time, tick) in zip(times, device.ticks) {
                    text += "    " + time + String(repeating: " ", count: width - time.count + 2) + tick.payload + "\n"
                }
            }
        }
        output(text)
        return .success
    }

    /// `room  scenarios/building.yaml:14:5  12 devices, 1 every 5s, qos 1`.
    static func header(_ device: DevicePlan, group: DeviceGroup?, file: String) -> String {
        let count = group?.count ?? 1
        var facts = [count == 1 ? "1 device" : "\(count) devices", rate(device.perSecond), "qos \(device.qos)"]
        if device.retain { facts.append("retained") }
        return "\(device.group)  \(group?.location?.description ?? file)  " + facts.joined(separator: ", ")
    }

    /// `10/s`, `2.5/s`, or `1 every 5s` for slow rates.
    static func rate(_ perSecond: Double) -> String {
        guard perSecond.isFinite else { return "as fast as possible" }
        if perSecond >= 1 { return trimmed(perSecond) + "/s" }
        return "1 every " + trimmed(1 / perSecond) + "s"
    }

    private static func trimmed(_ value: Double) -> String {
        let text = Text.fixed(value, decimals: 3)
        guard text.contains(".") else { return text }
        return String(text.reversed().drop { $0 == "0" }.drop { $0 == "." }.reversed())
    }
}
