import FoundationEssentials
import Logging
import Report
import Scenario
import Simulator

/// `devsim sample`: the first few ticks of the first device of every device group, or every
/// tick of a stretch of virtual time (`--for 24h`), on the dry run's virtual clock, in a form
/// made for reading:
///
/// ```
/// seed 42 (random; --seed 42 shows these values again)
///
/// room  scenarios/building.yaml:14:5  12 devices, 1 every 5s, qos 1
///   room-1 → building/room-1/climate
///   as client id room-1, user room-1 with a password
///   with userProperties site=plant-1, messageExpiry 300s      (a group with `properties`)
///     +00:00:00.000  {"params":{"temperature":21.4}}
///     +00:00:05.000  {"params":{"temperature":21.5}}
/// ```
///
/// Times count from the device's first CONNACK (its `jitter` delay included), as the dry run's
/// `at` does; a device that says its state at the CONNACK shows it first, at 0. The payloads
/// are those a run with the same seed publishes for that device.
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
        // What the devices' scripts print, and their failures: sample is where a script is debugged.
        let logger = Logger(minimumLevel: .debug)
        var text = "seed \(seed)" + (options.seed == nil ? " (random; --seed \(seed) shows these values again)" : "") + "\n"
        func flush(over bytes: Int) {
            guard text.utf8.count > bytes else { return }
            output(text)
            text = ""
        }
        let wallStart = WallTime.now().secondsSinceEpoch
        for scenario in scenarios {
            let plan = FleetPlan(scenarios: [scenario], settings: settings)
            for device in Sample.firstDevicePlans(of: plan) {
                let group = scenario.groups.first { $0.name == device.group }
                text += "\n" + header(device, group: group, file: scenario.file) + "\n"
                text += "  \(device.id) → \(device.topic)\n"
                if let connection = plan.connections.first(where: { $0.devices.contains { $0.id == device.id } }),
                    let identity = ConnectionIdentity.text(of: connection, in: plan)
                {
                    text += "  as \(identity)\n"
                }
                if let properties = device.properties { text += "  with \(properties.summary)\n" }
                // `publish: max` has no schedule, only an order: its ticks are numbered.
                let numbered = !device.perSecond.isFinite
                let width = numbered ? "#\(options.count ?? Sample.defaultCount)".count : VirtualTime.text(0).count
                var number = 0
                Sample.forEachTick(
                    of: device, in: plan, seed: seed, count: options.count, span: options.span, wallStart: wallStart, logger: logger
                ) {
                    tick in
                    if !tick.isBeside { number += 1 }
                    let time = numbered && !tick.isBeside ? "#\(number)" : VirtualTime.text(tick.seconds)
                    text += "    " + time + String(repeating: " ", count: max(0, width - time.count) + 2) + tick.payload + "\n"
                    flush(over: 64 * 1024)
                }
            }
        }
        flush(over: 0)
        return .success
    }

    /// `room  scenarios/building.yaml:14:5  12 devices, 1 every 5s, qos 1`; a Sparkplug group's
    /// nodes after.
    static func header(_ device: DevicePlan, group: DeviceGroup?, file: String) -> String {
        let count = group?.count ?? 1
        var facts = [count == 1 ? "1 device" : "\(count) devices", rate(device.perSecond), "qos \(device.qos)"]
        if device.retain { facts.append("retained") }
        if let replay = device.replay {
            let span = (replay.times.last ?? 0) - (replay.times.first ?? 0)
            facts.append(
                "replays \(replay.file) (\(Text.counted(replay.messages.count, "message")) over \(trimmed(span))s"
                    + (replay.speed == 1 ? "" : ", speed \(trimmed(replay.speed))x") + (replay.loops ? ", looping" : "") + ")")
        }
        if let sparkplug = group?.sparkplug {
            let nodes = min(sparkplug.nodes, count)
            facts.append("Sparkplug B under \(nodes == 1 ? "1 edge node" : "\(nodes) edge nodes") of group \(sparkplug.groupID)")
        }
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
