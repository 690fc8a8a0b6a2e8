import Logging
import Scenario
import Scripting
import Signals

/// The device scripts of one event loop, or of one dry run: one interpreter (`ScriptEngine`),
/// owned as the loop owns its clients, each script loaded into it once; where the scripts'
/// `print` goes (the log, at debug level, with the device's id) and their failures (said once a
/// reason, with the script's file and line). Confined to its loop.
final class ScriptHost {
    let engine: ScriptEngine
    private var loaded: [String: Script] = [:]
    /// The fields' shapes its devices' hooks see, by their paths: one a group, not one a device.
    private var shapes: [[String]: FieldShape] = [:]
    /// Says a failure, once for each `key`.
    let warn: (_ message: String, _ key: String) -> Void
    /// Whether its devices' failures are counted (`scriptErrors`): not in the trial before a run,
    /// whose failures are errors.
    let countsFailures: Bool

    init(
        limits: ScriptLimits = .standard, logger: Logger?, countsFailures: Bool = true,
        warn: @escaping (_ message: String, _ key: String) -> Void
    ) {
        self.countsFailures = countsFailures
        engine = ScriptEngine(limits: limits) { device, text in
            logger?.debug("script: " + text, ["device": .string(device)])
        }
        self.warn = warn
    }

    /// The interpreter of a dry run or a `sample`: its failures said on `logger`, once a reason.
    static func offline(logger: Logger?) -> ScriptHost {
        var said: Set<String> = []
        return ScriptHost(logger: logger) { message, key in
            if said.insert(key).inserted { logger?.warning(message) }
        }
    }

    /// `script` as this interpreter loaded it; `nil` when it fails to load here, which the
    /// scenario's loading found already unless the file changed since (said once).
    func script(_ script: DeviceScript) -> Script? {
        if let known = loaded[script.path] { return known }
        do {
            let made = try engine.load(file: script.path, text: script.text)
            loaded[script.path] = made
            return made
        } catch {
            warn("script: \(error): its devices run without it", "script load: \(script.path)")
            return nil
        }
    }

    /// The shape of `device.fields` for fields at `paths` (`location.lat`), made once.
    func shape(of paths: [String]) -> FieldShape {
        if let known = shapes[paths] { return known }
        let made = engine.fieldShape(paths: paths.map { $0.split(separator: ".").map(String.init) })
        shapes[paths] = made
        return made
    }

    /// A failed call of `device`'s hook, said once for its script's place and reason.
    func failed(_ error: ScriptError, of hook: Hook, device: String) {
        let why =
            switch error.stop {
            case .budget?: " (the hook is not called again for this device)"
            case .memory?, nil: ""
            }
        warn(
            "script: \(error) in \(hook.rawValue)() of device '\(device)'\(why)\(countsFailures ? "; counted among scriptErrors" : "")",
            "script: \(error.file):\(error.line ?? 0): \(error.stop.map { "\($0)" } ?? error.message)")
    }

    /// The seeded state of `math.random` for the device `id`: a pure function of the run's
    /// seed and the device's id, so a run, its dry run and every shard draw alike.
    static func random(seed: UInt64, id: String) -> (UInt64, UInt64, UInt64, UInt64) {
        var expander = SplitMix64(seed: Seed(seed).derive("devsim.script").derive(id).value)
        return (expander.next(), expander.next(), expander.next(), expander.next())
    }
}
