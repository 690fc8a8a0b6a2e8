/// devsim's commands, as the general help lists them: the one list the parser dispatches on,
/// exhaustively, and an unknown command's message names, so neither can leave one out.
enum CommandName: String, CaseIterable {
    case run, record, validate, sample, report, help, version

    /// The command `word` names, its flags (`--help`, `-V`) included; `nil` for none.
    init?(word: String) {
        switch word {
        case "--help", "-h": self = .help
        case "--version", "-V": self = .version
        default: self.init(rawValue: word)
        }
    }

    /// `run, record, validate, sample, report, help and version`.
    static var listed: String {
        let names = allCases.map(\.rawValue)
        return names.dropLast().joined(separator: ", ") + " and " + names[names.count - 1]
    }
}
