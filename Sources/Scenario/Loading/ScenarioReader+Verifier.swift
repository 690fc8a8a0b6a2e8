extension ScenarioReader {
    /// `verify: { username, password, clientId, tls }`: the closed-loop check's own identity.
    func verifierSettings(_ node: Node) -> VerifierSettings? {
        guard let entries = entries(node, of: "'verify'", known: ScenarioKeys.verifier.keys) else { return nil }
        if entries["password"] != nil, entries["username"] == nil {
            report(entries.mark, "'password' in 'verify' goes with a 'username'")
        }
        return VerifierSettings(
            username: string(entries["username"], "username"),
            password: string(entries["password"], "password"),
            clientID: template(entries["clientId"], "clientId", allowID: false),
            tls: entries["tls"].flatMap { tls($0, .verifierTLS) })
    }
}
