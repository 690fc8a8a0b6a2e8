import MQTT
import Scenario
import Transport

/// What keeps devices from having the identities the scenario gives them: found once their ids
/// are made, before any connects.
extension FleetPlan {
    /// Whether each device of `scenario` has its own client certificate (`"certs/{id}.pem"`, or
    /// a credentials file's), so that no other connection may borrow one.
    package static func devicesHaveOwnCertificates(_ scenario: Scenario) -> Bool {
        let broker = scenario.broker
        let columns = broker.credentials?.columns ?? []
        return [broker.tls?.certificate, broker.tls?.key].contains { $0.map(Template.init)?.variesByDevice == true }
            || columns.contains(.certificate) || columns.contains(.key)
    }

    /// devsim's own connections (the control topic's; `--verify`'s, checked by `RunChecks`)
    /// connect as the verifier, with its certificate: one of a device's would make them that
    /// device, which a broker that takes a certificate as the identity lets read only its own.
    static func controlIdentityConflict(of scenario: Scenario) -> Diagnostic? {
        guard scenario.controlTopic != nil, devicesHaveOwnCertificates(scenario), scenario.verify?.tls == nil else { return nil }
        return Diagnostic(
            file: scenario.file, line: 1, column: 1,
            message: "the control topic is read on devsim's own connection, and each device has its own certificate: give devsim one "
                + "(verify: { tls: { certificate: …, key: … } }), which its control connection takes")
    }

    /// A subscriber group without a user of its own is the broker's, its templates filled with
    /// the client id: a `{token}` there has none unless the credentials file has a row for it.
    static func subscriberTokenConflict(of group: SubscriberGroup, in scenario: Scenario, clientIDs: [String]) -> Diagnostic? {
        guard group.username == nil, scenario.broker.username.map(Template.init)?.usesToken == true else { return nil }
        let rows = scenario.broker.credentials?.rows ?? [:]
        guard let lacking = clientIDs.first(where: { rows[$0]?[.token] == nil }) else { return nil }
        let place = group.location ?? SourceLocation(file: scenario.file, line: 1, column: 1)
        return Diagnostic(
            file: place.file, line: place.line, column: place.column,
            message: "subscriber group '\(group.name)' connects as the broker's user, '{token}', and its connection '\(lacking)' has "
                + "no token in the credentials file: give the group a 'username' of its own")
    }

    /// A shared connection carries several devices under one identity, so credentials that
    /// differ from device to device cannot be theirs.
    static func sharedIdentityConflict(of group: DeviceGroup, in scenario: Scenario, at place: SourceLocation) -> Diagnostic? {
        guard case .shared = group.connection else { return nil }
        let broker = scenario.broker
        let templates: [(String, String?)] = [
            ("broker.username", broker.username), ("broker.password", broker.password),
            ("broker.tls.certificate", broker.tls?.certificate), ("broker.tls.key", broker.tls?.key),
        ]
        let varying = templates.compactMap { key, text in text.map(Template.init)?.variesByDevice == true ? key : nil }
        guard !varying.isEmpty || broker.credentials != nil else { return nil }
        let what = varying.first.map { "'\($0)' differs from device to device" } ?? "'broker.credentials' gives each device its own"
        return Diagnostic(
            file: place.file, line: place.line, column: place.column,
            message: "device group '\(group.name)' shares its connections among its devices, and \(what): a connection has one "
                + "identity; give each device its own connection (leave out 'connection'), or every device one identity")
    }

    /// The devices of `scenario` its credentials file has no row for, or whose row lacks the
    /// `{token}` the user name or password takes: the first `shown` of each, then a count.
    static func credentialConflicts(
        of scenario: Scenario, devices: [(id: String, group: String)], hasTLS: Bool, shown: Int = 10
    ) -> [Diagnostic] {
        guard let credentials = scenario.broker.credentials else { return [] }
        let place = credentials.location
        func diagnostic(_ message: String) -> Diagnostic {
            Diagnostic(file: place.file, line: place.line, column: place.column, message: message)
        }
        func listed(_ devices: [(id: String, group: String)], _ what: String) -> [Diagnostic] {
            var found = devices.prefix(shown).map {
                diagnostic("'\(credentials.path)' \(what) for device '\($0.id)' (group '\($0.group)')")
            }
            if devices.count > shown { found.append(diagnostic("'\(credentials.path)' \(what) for \(devices.count - shown) more devices")) }
            return found
        }
        var conflicts = listed(devices.filter { credentials.rows[$0.id] == nil }, "has no row")
        let broker = scenario.broker
        if [broker.username, broker.password].contains(where: { $0.map(Template.init)?.usesToken == true }) {
            conflicts += listed(
                devices.filter { credentials.rows[$0.id].map { $0[.token] == nil } == true }, "has no 'token', which '{token}' takes,")
        }
        if broker.azureIoTHub == nil, credentials.columns.contains(.deviceKey) {
            conflicts.append(diagnostic("'\(credentials.path)' gives Azure IoT Hub device keys, for a broker without 'azureIoTHub'"))
        }
        if !hasTLS, credentials.columns.contains(.certificate) || credentials.columns.contains(.key) {
            conflicts.append(diagnostic("'\(credentials.path)' gives client certificates, for a broker without 'tls': give 'tls' too"))
        }
        return conflicts
    }

    /// Makes every connection's TLS context now, at a run's start or a reload, not on the
    /// event loops as the devices connect: ~1 ms each with a certificate per device. A context
    /// that cannot be made fails its connection later, with the reason.
    package func prepareTLSContexts() {
        for (host, connections) in Dictionary(grouping: connections, by: \.options.host) {
            _ = TLSContexts.prepare(connections.compactMap(\.options.tls), host: host)
        }
    }
}
