import Transport

extension RecordSettings {
    /// What is wrong with the TLS files, read now as a connection would read them
    /// (`TLSFiles.problems`): each with its setting (`ca`, `certificate`, `key`) and the words.
    package var tlsFileProblems: [(setting: String, problem: String)] {
        guard let tls else { return [] }
        return TLSFiles.problems(in: tls).map { ($0.setting, $0.description) }
    }
}
