import FoundationEssentials
import Report
import Simulator

/// `/api/events`: Server-Sent Events for a live page or a script. A new stream opens with
/// `history` (the charts' points since the run began, `LiveHistory`) and a `status`; then one
/// `status` event a second (the figures, each device group's with what the broker refused it by
/// reason, the subscriber groups', the connections up, the rates of the last second, the
/// stage or capacity step under way, and the chart's next point when one is complete), and one
/// event per state change: `group` for a command carried out on a device group, `reload` for a
/// reload of the scenario files, `lost` for the connections lost since the last second, by
/// reason, `history` again when the points were thinned, and `finished` when the run ended,
/// after which the stream ends and a page should not reconnect. Confined to the HTTP loop, where
/// the service holds it in a `LoopBound`.
package final class EventHub {
    private var streams: [HTTPStream] = []
    private var previous: (published: Int, scheduled: Int, errors: [String: Int], at: Double)?
    /// The last second's rates, for a stream that opens between two ticks: its first status
    /// has them too, so that a page never shows a rate of 0 it did not see.
    private var rates: (published: Double, scheduled: Double)?
    private var history = LiveHistory()
    /// Each group's latest payload as the last status had it: the run's result has none.
    private var latestPayloads: [String: String] = [:]
    /// The run's last status and its `finished` event, once it ended.
    private var ending: String?

    package init() {}

    /// A new subscriber's stream, opened with the current status.
    package func subscribe(_ view: DevsimService.View) -> HTTPStream {
        let stream = HTTPStream()
        if ending != nil {
            stream.end()
        } else {
            streams.append(stream)
        }
        return stream
    }

    /// The first bytes of a new stream: how soon to reconnect, the history, then the status
    /// now, or the run's last and its end.
    package func opening(_ view: DevsimService.View) -> [UInt8] {
        let now = ending ?? Self.event("status", status(view.live, rates: rates ?? Self.average(view.live.result)))
        return Array(("retry: 2000\n\n" + Self.event("history", history.json) + now).utf8)
    }

    /// Once a second: the status, and the losses since the last tick.
    package func tick(_ view: DevsimService.View) {
        guard ending == nil else { return }
        streams.removeAll { $0.isClosed }
        let result = view.live.result
        latestPayloads = view.live.latestPayloads
        let now = result.durationSeconds
        var lost: [String: Int] = [:]
        if let previous, now > previous.at {
            let seconds = now - previous.at
            rates = (
                Double(result.totals[.published] - previous.published) / seconds,
                Double(Self.scheduled(result.totals) - previous.scheduled) / seconds
            )
            for (reason, count) in result.connectionErrors where reason.hasPrefix("connection lost") {
                let new = count - (previous.errors[reason] ?? 0)
                if new > 0 { lost[reason] = new }
            }
        }
        previous = (result.totals[.published], Self.scheduled(result.totals), result.connectionErrors, now)
        let (point, thinned) = now > 0 ? history.record(result) : (nil, false)
        guard !streams.isEmpty else { return }
        var text = thinned ? Self.event("history", history.json) : ""
        text += Self.event("status", status(view.live, rates: rates, point: thinned ? nil : point))
        for (reason, count) in lost.sorted(by: { $0.key < $1.key }) {
            text += Self.event("lost", "{\"reason\":\(JSONText.quoted(reason)),\"count\":\(count)}")
        }
        send(text)
    }

    /// The run ended with `result`: its last status (the final figures, the last point) and
    /// `finished`, then every stream ends; a stream opened after gets them at once.
    package func finished(_ result: RunResult, outcome: String) {
        guard ending == nil else { return }
        let (point, thinned) = history.close(result)
        var text = thinned ? Self.event("history", history.json) : ""
        text += Self.event(
            "status", status(result, payloads: latestPayloads, position: RunPosition(), rates: rates, point: thinned ? nil : point))
        text += Self.event(
            "finished",
            "{\"outcome\":\(JSONText.quoted(outcome)),\"durationSeconds\":\(JSONText.number(result.durationSeconds, decimals: 3))}")
        ending = text
        send(text)
        for stream in streams { stream.end() }
        streams.removeAll()
    }

    /// A device group was paused or resumed.
    package func groupChanged(_ group: String, _ command: GroupCommand, connections: Int) {
        var data = "{\"group\":\(JSONText.quoted(group)),\"command\":\"\(command.name)\",\"connections\":\(connections)"
        if case .rate(let perSecond) = command { data += ",\"perSecond\":\(JSONText.number(perSecond))" }
        if case .scale(let count) = command { data += ",\"count\":\(count)" }
        send(Self.event("group", data + "}"))
    }

    /// The scenario files were read again (SIGHUP): what the reload did, as the report lists it.
    package func reloaded(_ reload: Reload) {
        send(Self.event("reload", Self.json(reload)))
    }

    private func send(_ text: String) {
        let bytes = Array(text.utf8)
        for stream in streams { stream.send(bytes) }
    }

    /// Ticks due less those kept back unchanged (`onChange`), which were never to be sent: the
    /// status line's schedule, so that a group of `onChange` devices is not shown falling behind.
    private static func scheduled(_ totals: Totals) -> Int {
        totals[.scheduled] - totals[.unchanged]
    }

    /// The rates since the run began: a stream opened before the first tick has these.
    private static func average(_ result: RunResult) -> (published: Double, scheduled: Double)? {
        guard result.durationSeconds > 0 else { return nil }
        return (Double(result.totals[.published]) / result.durationSeconds, Double(scheduled(result.totals)) / result.durationSeconds)
    }

    private func status(_ live: Fleet.Live, rates: (published: Double, scheduled: Double)?, point: LiveHistory.Point? = nil) -> String {
        status(live.result, payloads: live.latestPayloads, position: live.position, rates: rates, point: point)
    }

    private func status(
        _ result: RunResult, payloads: [String: String], position: RunPosition, rates: (published: Double, scheduled: Double)?,
        point: LiveHistory.Point?
    ) -> String {
        var fields = [
            "\"connectionsUp\":\(result.totals.connectionsUp)", "\"connections\":\(result.connections)",
            "\"durationSeconds\":\(JSONText.number(result.durationSeconds, decimals: 3))",
        ]
        fields += Figure.allCases.map { "\"\($0.stringValue)\":\(result.totals[$0])" }
        if let rates {
            fields.append("\"publishedPerSecond\":\(JSONText.number(rates.published, decimals: 1))")
            fields.append("\"scheduledPerSecond\":\(JSONText.number(rates.scheduled, decimals: 1))")
        }
        if !result.latency.isEmpty {
            fields.append("\"latencyP50Ms\":\(JSONText.number(Double(result.latency.percentile(50)) / 1e6, decimals: 3))")
            fields.append("\"latencyP99Ms\":\(JSONText.number(Double(result.latency.percentile(99)) / 1e6, decimals: 3))")
        }
        if !result.lateness.isEmpty {
            fields.append("\"latenessP50Ms\":\(JSONText.number(Double(result.lateness.percentile(50)) / 1e6, decimals: 3))")
            fields.append("\"latenessP99Ms\":\(JSONText.number(Double(result.lateness.percentile(99)) / 1e6, decimals: 3))")
        }
        if let position = Self.position(position) { fields.append("\"position\":" + position) }
        if let point { fields.append("\"point\":" + point.json) }
        let groups = result.groups.map { group in
            "{\"name\":\(JSONText.quoted(group.name)),\"connectionsUp\":\(group.totals.connectionsUp),"
                + Figure.allCases.map { "\"\($0.stringValue)\":\(group.totals[$0])" }.joined(separator: ",")
                + (group.totals.refusals.isEmpty ? "" : ",\"refusals\":" + Self.json(group.totals.refusals))
                + (payloads[group.name].map { ",\"latestPayload\":\(JSONText.quoted($0))" } ?? "") + "}"
        }
        fields.append("\"groups\":[\(groups.joined(separator: ","))]")
        if !result.subscribers.isEmpty {
            // As the report has them, less the raw histogram behind their latency.
            let subscribers = result.subscribers.map { group in
                var group = group
                group.histogram = nil
                return Self.json(group)
            }
            fields.append("\"subscribers\":[\(subscribers.joined(separator: ","))]")
        }
        return "{" + fields.joined(separator: ",") + "}"
    }

    /// `value` as the report writes it, on one line.
    private static func json(_ value: some Encodable) -> String {
        (try? JSONEncoder().encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "null"
    }

    /// `{"stages":[{"group":…,"stage":2,"count":4,"target":"x2","seconds":…,"plannedSeconds":…}],
    /// "step":{"step":3,"phase":"measuring","multiplier":4},"targetPerSecond":…}`; `nil` for a
    /// run with neither stages nor a capacity search.
    private static func position(_ position: RunPosition) -> String? {
        var fields: [String] = []
        if !position.stages.isEmpty {
            let stages = position.stages.map { stage in
                var parts: [String] = []
                if let group = stage.group { parts.append("\"group\":\(JSONText.quoted(group))") }
                parts.append("\"stage\":" + (stage.stage.map(String.init) ?? "null"))
                parts.append("\"count\":\(stage.count)")
                if let target = stage.target { parts.append("\"target\":\(JSONText.quoted(target))") }
                parts.append("\"seconds\":\(JSONText.number(stage.seconds, decimals: 1))")
                parts.append("\"plannedSeconds\":\(JSONText.number(stage.plannedSeconds, decimals: 3))")
                return "{" + parts.joined(separator: ",") + "}"
            }
            fields.append("\"stages\":[" + stages.joined(separator: ",") + "]")
        }
        if let step = position.step {
            fields.append(
                "\"step\":{\"step\":\(step.step),\"phase\":\(JSONText.quoted(step.phase.rawValue)),"
                    + "\"multiplier\":\(JSONText.number(step.multiplier, decimals: 3))}")
        }
        if let target = position.targetPerSecond { fields.append("\"targetPerSecond\":\(JSONText.number(target, decimals: 1))") }
        return fields.isEmpty ? nil : "{" + fields.joined(separator: ",") + "}"
    }

    /// One event in the stream's format: its type, its data on one line, a blank line.
    static func event(_ type: String, _ data: String) -> String {
        "event: \(type)\ndata: \(data)\n\n"
    }
}
