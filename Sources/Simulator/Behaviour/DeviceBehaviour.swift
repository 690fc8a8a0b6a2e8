import Signals

/// What a device sends and when, chosen once from its plan: its pacing (a rate, as fast as
/// allowed, a recording's times) and its source (the messages of each tick). The run's `Device`,
/// the dry run and `sample` each hold one and move it on alike, so they agree byte for byte.
struct DeviceBehaviour {
    var pacing = Pacing.unstarted
    let source: any MessageSource

    /// `firstAlias`: for a device of a Sparkplug edge node, the first alias of its metrics in
    /// the node (`SparkplugNodePlan.firstAliases`).
    /// `scripts`: the interpreter of the loop (or dry run) the device runs on, for a device with
    /// a script.
    init(plan: DevicePlan, seed: UInt64, firstAlias: UInt64? = nil, scripts: ScriptHost? = nil) {
        source = Self.source(of: plan, seed: seed, firstAlias: firstAlias, scripts: scripts)
    }

    /// The behaviours of `connection`'s devices, in its order: a Sparkplug edge node's devices
    /// each with their metrics' first alias in the node.
    static func of(_ connection: ConnectionPlan, seed: UInt64, scripts: @autoclosure () -> ScriptHost?) -> [DeviceBehaviour] {
        let firstAliases = connection.sparkplug.map { _ in SparkplugNodePlan.firstAliases(of: connection.devices) }
        // The interpreter is made for the first device that has a script.
        let scripts = connection.devices.contains { $0.script != nil } ? scripts() : nil
        return connection.devices.enumerated().map { index, device in
            DeviceBehaviour(plan: device, seed: seed, firstAlias: firstAliases?[index], scripts: scripts)
        }
    }

    private static func source(of plan: DevicePlan, seed: UInt64, firstAlias: UInt64?, scripts: ScriptHost?) -> any MessageSource {
        if let replay = plan.replay { return ReplaySource(replay) }
        let signals = DeviceSignals(
            payload: plan.payload, deviceID: plan.id, index: plan.index, seed: seed, sampleInterval: plan.sampleInterval)
        if let spec = plan.script, let scripts, let script = scripts.script(spec) {
            let source = ScriptedSource(signals: signals, host: scripts, script: script, plan: plan, seed: seed)
            return plan.onChange.map { OnChangeSource(source, signals: signals, onChange: $0) } ?? source
        }
        if let node = plan.sparkplug {
            return SparkplugDataSource(signals: signals, firstAlias: firstAlias ?? 1, reporting: node.reporting)
        }
        let source: any MessageSource =
            signals.isPerField ? PerFieldSource(signals: signals, topic: plan.topic, retain: plan.retain) : PayloadSource(signals: signals)
        guard let onChange = plan.onChange else { return source }
        return OnChangeSource(source, signals: signals, onChange: onChange)
    }
}
