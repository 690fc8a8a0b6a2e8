import MQTT
import Mosquitto
import Reactor
import Report

/// Who is in the running fleet: its device groups, each with its counters (one set per loop) and
/// its connections by loop, and the changes that commands and reloads make to it. Any thread:
/// what it keeps is behind a lock, and it touches a connection only on the connection's loop.
///
/// A group never leaves the roster: one a reload removed keeps its counters, so the report's
/// figures still add up to what the run did, and one a later reload brings back counts on in
/// them. One entry a name: every output lists the groups by name.
final class FleetRoster: Sendable {
    struct Group {
        var plan: GroupPlan
        let counters: [Counters]
        /// Its connections' keys (`ConnectionPlan.key`), with the loop each runs on.
        var connections: [String: Int] = [:]
        /// False once a reload removed it.
        var isPresent = true
        /// Paused by a command, until one resumes it.
        var isPaused = false
        /// The rate of the last rate command, which connections added later take too.
        var commandedRate: Double?
        var publishesAtMax: Bool
        /// Its devices take commands (`commands:`).
        var takesCommands = false
    }

    /// Changes are for a fleet that runs: before, its connections are not open yet; at the end,
    /// the connections the end waits for must be the last ones made.
    enum Phase {
        case starting, running, ending
    }

    private struct State {
        /// The plan the fleet runs now: the one it started with, or the last reload's.
        var plan: FleetPlan
        var groups: [Group] = []
        /// Connections on each loop, to put new ones where there are fewest.
        var loopLoads: [Int]
        /// Connections made since the start, those that left included.
        var made = 0
        var reloads: [Reload] = []
        var phase = Phase.starting

        var connectionCount: Int { groups.reduce(0) { $0 + $1.connections.count } }
    }

    let contexts: [LoopBound<LoopContext>]
    private let control: RunControl
    private let settings: RunSettings
    private let logsEvents: Bool
    private let state: Locked<State>
    /// The figures of a cluster's hosts (`broker.hosts`).
    let hosts: HostTable

    /// Every group of `plan`, and its connections dealt over the loops in turn (none opened yet).
    init(plan: FleetPlan, contexts: [LoopBound<LoopContext>], control: RunControl, settings: RunSettings) throws(ClientSetupError) {
        self.contexts = contexts
        let hosts = HostTable()
        self.hosts = hosts
        self.control = control
        self.settings = settings
        logsEvents = settings.logConnectionEvents || plan.connections.count <= 10
        var state = State(plan: plan, loopLoads: Array(repeating: 0, count: contexts.count))
        for (index, groupPlan) in plan.groupPlans.enumerated() {
            state.groups.append(
                Group(
                    plan: groupPlan, counters: contexts.map { _ in Counters() },
                    publishesAtMax: plan.connections.contains { $0.group == index && $0.devices.contains { !$0.perSecond.isFinite } },
                    // A Sparkplug node hears DCMDs whatever its fields take.
                    takesCommands: plan.connections.contains {
                        $0.group == index && $0.devices.contains { $0.commands != nil || $0.sparkplug != nil }
                    }))
        }
        // Before the loops run: their contexts are the fleet's until they start.
        for (index, connectionPlan) in plan.connections.enumerated() {
            let context = contexts[index % contexts.count].value
            let parts = try Self.connection(
                connectionPlan, loop: index % contexts.count, isInitial: true, in: &state, settings, logsEvents, hosts)
            context.connections.append(DeviceConnection(parts, context: context))
        }
        for context in contexts { context.value.connectionCount = plan.connections.count }
        self.state = Locked(state)
    }

    /// Makes the parts of a connection of group `plan.group` on loop `loop` (its loop makes the
    /// connection of them), and counts it in.
    private static func connection(
        _ plan: ConnectionPlan, loop: Int, isInitial: Bool, in state: inout State, _ settings: RunSettings, _ logsEvents: Bool,
        _ hosts: HostTable
    ) throws(ClientSetupError) -> DeviceConnection.Parts {
        let parts = try DeviceConnection.Parts(
            plan: plan, seed: settings.seed, connackTimeout: settings.connackTimeout,
            settings: .init(logsEvents: logsEvents, isInitial: isInitial, discoveryCleanup: settings.discoveryCleanup),
            counters: state.groups[plan.group].counters[loop],
            hostLink: plan.options.hosts.isEmpty
                ? nil
                : HostLink(
                    hosts: plan.options.hosts, current: BrokerAddress(host: plan.options.host, port: plan.options.port), group: plan.group,
                    loop: loop, table: hosts))
        state.groups[plan.group].connections[plan.key] = loop
        state.loopLoads[loop] += 1
        state.made += 1
        return parts
    }

    /// The groups' names, removed ones too, in the report's order.
    var groupNames: [String] { state.withLock { $0.groups.map(\.plan.name) } }

    /// The groups, present or not, whose devices take commands.
    var commandGroups: Set<String> {
        state.withLock { state in
            Set(state.groups.filter { $0.takesCommands }.map(\.plan.name))
        }
    }

    /// Connections in the fleet now.
    var connectionCount: Int { state.withLock { $0.connectionCount } }
    /// The plan the fleet runs now: the last reload's or scale's, or the first.
    var plan: FleetPlan { state.withLock { $0.plan } }

    /// Connections made since the start, those that left included: the run's end waits for
    /// each to finish.
    var madeCount: Int { state.withLock { $0.made } }

    var reloads: [Reload] { state.withLock { $0.reloads } }

    /// The figures so far.
    var totals: Totals { Totals(state.withLock { $0.groups.flatMap(\.counters) } + hosts.allCounters) }

    /// Each group's figures, in the report's order.
    var groupTotals: [(name: String, totals: Totals)] {
        state.withLock { $0.groups.enumerated().map { ($1.plan.name, Totals($1.counters + hosts.counters(ofGroup: $0))) } }
    }

    /// The run has begun: commands and reloads are taken from now on. Before the connections'
    /// first open is queued.
    func begin() {
        state.withLock { $0.phase = .running }
    }

    /// The run is ending: from now on commands, reloads and scales are refused, so that the
    /// connections the end waits for are the last ones made.
    func close() {
        state.withLock { $0.phase = .ending }
    }

    /// Carries out `command` on every connection of the group called `group` (see
    /// `GroupCommand`); returns how many connections it has now.
    func perform(_ command: GroupCommand, group name: String) throws(GroupCommandError) -> Int {
        let count = try state.withLock { state throws(GroupCommandError) -> Int in
            switch state.phase {
            case .starting: throw GroupCommandError("the run has not started yet")
            case .ending: throw GroupCommandError("the run is ending")
            case .running: break
            }
            guard let index = state.groups.firstIndex(where: { $0.isPresent && $0.plan.name == name }) else {
                throw GroupCommandError("no device group '\(name)'", isUnknownGroup: true)
            }
            switch command {
            case .pause: state.groups[index].isPaused = true
            case .resume: state.groups[index].isPaused = false
            case .rate(let perSecond):
                guard !state.groups[index].publishesAtMax else {
                    throw GroupCommandError("device group '\(name)' publishes at max: it has no rate to change")
                }
                guard !state.plan.connections.contains(where: { $0.devices.contains { $0.group == name && $0.replay != nil } }) else {
                    throw GroupCommandError(
                        "device group '\(name)' replays a recording: it has no rate to change (its speed is the scenario's)")
                }
                state.groups[index].commandedRate = perSecond
            case .scale(let count):
                try scale(group: index, to: count, in: &state)
                return state.groups[index].connections.count
            }
            for context in contexts {
                context.execute { context in
                    for connection in context.connections where connection.plan.group == index {
                        switch command {
                        case .pause: connection.pause()
                        case .resume: connection.resume()
                        case .rate(let perSecond): connection.setRate(perSecond)
                        case .scale: break
                        }
                    }
                }
            }
            return state.groups[index].connections.count
        }
        let done =
            switch command {
            case .pause: "paused"
            case .resume: "resumed"
            case .rate(let perSecond): "now publishes \(Text.fixed(perSecond, decimals: 3)) times a second per device"
            case .scale(let devices): "now has \(Text.counted(devices, "device"))"
            }
        control.logger.info("device group '\(name)' \(done) (\(Text.counted(count, "connection")))")
        control.commandObserver.withLock { $0 }?(command, name, count)
        return count
    }

    /// `scale`: the fleet's plan made again with the group's new device count, and applied.
    private func scale(group index: Int, to count: Int, in state: inout State) throws(GroupCommandError) {
        let name = state.groups[index].plan.name
        guard !state.groups[index].isPaused else {
            throw GroupCommandError("device group '\(name)' is paused: resume it before scaling it")
        }
        var scenarios = state.plan.scenarios
        var found = false
        for s in scenarios.indices {
            for g in scenarios[s].groups.indices where scenarios[s].groups[g].name == name {
                let stages = scenarios[s].groups[g].stages.isEmpty ? state.plan.stages : scenarios[s].groups[g].stages
                guard !stages.setsDevices else {
                    throw GroupCommandError("device group '\(name)' follows 'devices' stages: they set how many of its devices are in")
                }
                scenarios[s].groups[g].count = count
                found = true
            }
        }
        guard found else { throw GroupCommandError("device group '\(name)' is not in the scenarios any more") }
        let plan = FleetPlan(scenarios: scenarios, settings: settings)
        if let conflict = plan.conflicts.first {
            throw GroupCommandError("\(Text.counted(count, "device")) would clash: \(conflict.message)")
        }
        do {
            _ = try apply(plan, in: &state)
        } catch {
            throw GroupCommandError(error.description)
        }
    }

    /// A reload: `plan`, from the scenario files read again, replaces the running one (see
    /// `FleetChange`); recorded for the report, and logged.
    @discardableResult
    func reload(to plan: FleetPlan, at seconds: Double) -> Reload {
        let record = state.withLock { state in
            var record = Reload(atSeconds: seconds.thousandths)
            do throws(FleetChangeError) {
                let change = try apply(plan, in: &state)
                record.added = change.names(.added)
                record.removed = change.names(.removed)
                record.changed = change.names(.changed)
                record.scaled = change.names(.scaled)
                record.unchanged = change.names(.unchanged)
            } catch {
                record.error = error.description
            }
            state.reloads.append(record)
            return record
        }
        if let error = record.error {
            control.logger.error("reload: \(error); the fleet runs on as it was")
        } else {
            control.logger.info("reloaded: " + record.summary)
        }
        return record
    }

    /// Records a reload that never reached the fleet: the files did not load.
    func reloadFailed(_ error: String, at seconds: Double) -> Reload {
        let record = Reload(atSeconds: seconds.thousandths, error: error)
        state.withLock { $0.reloads.append(record) }
        control.logger.error("reload: \(error); the fleet runs on as it was")
        return record
    }

    /// Carries out the change from the running plan to `plan`: the connections that leave
    /// stop on their loops and the new ones open. All or nothing: a connection libmosquitto
    /// refuses to make (a TLS file it cannot read) leaves the fleet as it is.
    private func apply(_ plan: FleetPlan, in state: inout State) throws(FleetChangeError) -> FleetChange {
        switch state.phase {
        case .starting: throw FleetChangeError("the run has not started yet")
        case .ending: throw FleetChangeError("the run is ending")
        case .running: break
        }
        if settings.verify {
            throw FleetChangeError("the fleet cannot change under --verify, whose subscribers follow the fleet it started with")
        }
        let change = FleetChange(
            running: state.groups.filter(\.isPresent).map { .init(plan: $0.plan, connections: Set($0.connections.keys)) }, new: plan)
        guard !change.isEmpty else {
            state.plan = plan
            return change
        }
        var next = state
        // Each loop's part: the keys that leave, the connections that open.
        var retiring = Array(repeating: Set<String>(), count: contexts.count)
        var joining = Array(repeating: [LoopBound<LoopContext.Joining>](), count: contexts.count)
        for group in change.groups where group.kind != .unchanged {
            let index: Int
            // A group a reload removed and a later one brings back takes its place again: one
            // group of one name, whose figures go on from where they stopped.
            if let existing = next.groups.firstIndex(where: { $0.plan.name == group.plan.name }) {
                index = existing
            } else {
                index = next.groups.count
                next.groups.append(Group(plan: group.plan, counters: contexts.map { _ in Counters() }, publishesAtMax: false))
            }
            for key in group.retiring {
                guard let loop = next.groups[index].connections.removeValue(forKey: key) else { continue }
                retiring[loop].insert(key)
                next.loopLoads[loop] -= 1
            }
            if group.kind == .removed {
                next.groups[index].isPresent = false
                continue
            }
            if group.kind != .scaled {
                // What the file now says, not what the commands made of the old group.
                next.groups[index].plan = group.plan
                next.groups[index].isPresent = true
                next.groups[index].isPaused = false
                next.groups[index].commandedRate = nil
            }
            let rate = next.groups[index].commandedRate
            // The ramp of the group's connections from now; those that `devices` stages bring in
            // open now, and join when the stages, counted from the run's start, say.
            let firstOffset = group.opening.filter { $0.plan.presence == nil }.map(\.plan.startOffset).min() ?? 0
            for opening in group.opening {
                var connectionPlan = opening.plan
                connectionPlan.group = index
                if let rate { for device in connectionPlan.devices.indices { connectionPlan.devices[device].perSecond = rate } }
                let loop =
                    opening.replaces.flatMap { key in (0..<contexts.count).first { retiring[$0].contains(key) } }
                    ?? next.loopLoads.indices.min { next.loopLoads[$0] < next.loopLoads[$1] }!
                do {
                    let parts = try Self.connection(connectionPlan, loop: loop, isInitial: false, in: &next, settings, logsEvents, hosts)
                    joining[loop].append(
                        LoopBound(
                            handing: LoopContext.Joining(
                                parts: parts, replaces: opening.replaces,
                                offset: connectionPlan.presence == nil ? connectionPlan.startOffset - firstOffset : 0,
                                paused: next.groups[index].isPaused),
                            to: contexts[loop].loop))
                } catch {
                    throw FleetChangeError("device group '\(group.plan.name)': \(error)")
                }
            }
            if !group.opening.isEmpty {
                next.groups[index].takesCommands = group.opening.contains { $0.plan.devices.contains { $0.commands != nil } }
                next.groups[index].publishesAtMax = group.opening.contains { $0.plan.devices.contains { !$0.perSecond.isFinite } }
            }
        }
        let perConnection = DeviceConnection.descriptorsPerConnection
        do {
            try PortLimit.check(plan, settings: settings)
            try DescriptorLimit.raise(
                toFit: DescriptorLimit.needed(connections: next.connectionCount, perConnection: perConnection, loops: contexts.count),
                perConnection: perConnection)
        } catch {
            throw FleetChangeError("\(error)")
        }
        next.plan = plan
        state = next
        let groups = next.groups.count
        for (index, context) in contexts.enumerated() where !retiring[index].isEmpty || !joining[index].isEmpty {
            let (leave, join) = (retiring[index], joining[index])
            context.execute { context in context.change(retiring: leave, opening: join.map(\.value), groups: groups) }
        }
        return change
    }
}
