import Report
import Scenario

/// The devices of groups that replay a recording (`recording:`), and what a run of them must
/// know: when it ends by itself, what it refuses, what it warns of.
extension FleetPlan {
    /// Makes `device` replay `recording`: its own copy of the messages (or `asRecorded`, shared,
    /// when no id is rewritten), its first topic as its topic, and its start shifted, by the
    /// group's `jitter` if it has one, else spread evenly over the recording's typical interval
    /// so that a fleet of copies is not in lock step.
    static func replay(
        _ recording: RecordingSource, asRecorded: ReplayPlan?, into device: inout DevicePlan, group: DeviceGroup, seed: UInt64
    ) {
        let replay = asRecorded ?? ReplayPlan(source: recording, id: device.id)
        device.replay = replay
        device.topic = replay.topics[0]
        device.retain = false
        device.profile = nil
        let interval = replay.typicalInterval / replay.speed
        if let jitter = group.jitter {
            device.startDelay = DevicePlan.startDelay(jitter: jitter.seconds(perSecond: 1 / interval), seed: seed, deviceID: device.id)
        } else {
            device.startDelay = Double(device.index - 1) / Double(max(1, group.count)) * interval
        }
    }

    /// Every message the plan's devices send, when every one of them replays a recording once
    /// (no `loop`): the `--messages` at which such a run ends by itself; `nil` otherwise.
    public var replayedMessages: Int? {
        let devices = connections.flatMap(\.devices)
        guard !devices.isEmpty, devices.allSatisfy({ $0.replay.map { !$0.loops } ?? false }) else { return nil }
        return devices.reduce(0) { $0 + ($1.replay?.messages.count ?? 0) }
    }

    /// What a user should hear of the groups that replay a recording before a run: copies that
    /// would publish on the same topics.
    public var replayWarnings: [String] {
        scenarios.flatMap(\.groups).compactMap { group in
            guard let recording = group.recording, group.count > 1, recording.recordedID == nil else { return nil }
            return "\(group.location.map { "\($0): " } ?? "")device group '\(group.name)' makes \(group.count) copies of a recorded "
                + "device without 'recordedID': each publishes on the recorded topics, so their messages mix there; give "
                + "recordedID (the recorded device's id) to give each copy its own topics and ids"
        }
    }

    /// A run's stages shape rates, which a replay has none of: refused where the group is written.
    static func replayConflicts(of scenarios: [Scenario]) -> [Diagnostic] {
        guard let staged = scenarios.first(where: { !$0.stages.isEmpty }) else { return [] }
        return scenarios.flatMap(\.groups).compactMap { group in
            guard group.recording != nil, let place = group.location else { return nil }
            return Diagnostic(
                file: place.file, line: place.line, column: place.column,
                message: "device group '\(group.name)' replays a recording, which has no rate for the stages of \(staged.file) to "
                    + "shape (speed sets its pace): run it without stages")
        }
    }
}
