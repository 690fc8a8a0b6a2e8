import Inference
import Scenario

extension RecordCommand {
    /// What `--infer` writes as `inferred.yaml`: a scenario of generators fitted to the
    /// recording (`RecordingScenario.inferred`), named as given.
    static let infer: (@Sendable (Recording, String) -> String)? = { RecordingScenario.inferred($0, name: $1) }
}
