import Scenario

extension RecordCommand {
    /// What `--infer` writes as `inferred.yaml`: a scenario of generators fitted to the
    /// recording, named as given. `nil` in a build without the fitting, where `--infer` is
    /// refused before anything is recorded.
    static let infer: (@Sendable (Recording, String) -> String)? = nil
}
