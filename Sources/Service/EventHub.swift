import FoundationEssentials
import Simulator

/// `/api/events`: Server-Sent Events for a live page or a script. One `status` event a second
/// (the figures, the connections up, the rates since the previous one), and one event per state
/// change: `group` for a command carried out on a device group, `reload` for a reload of the
/// scenario files, `lost` for the connections lost since the last second, by reason. Confined to the HTTP loop.
package final class EventHub: @unchecked Sendable {
    private var streams: [HTTPStream] = []
    private var previous: (published: Int, scheduled: Int, errors: [String: Int], at: Double)?

    package init() {}

    /// A new subscriber's stream, opened with the current status.
    package func subscribe(_ view: DevsimService.View) -> HTTPStream {
        let stream = HTTPStream()
        streams.append(stream)
        return stream
    }

    /// The first bytes of a new stream: how soon to reconnect, then the status now.
    package func opening(_ view: DevsimService.View) -> [UInt8] {
        Array(("retry: 2000\n\n" + Self.event("status", status(view, rates: nil))).utf8)
    }

    /// Once a second: the status, and the losses since the last tick.
    package func tick(_ view: DevsimService.View) {
        streams.removeAll { $0.isClosed }
        let result = view.live.result
        let now = result.durationSeconds
        var rates: (published: Double, scheduled: Double)?
        var lost: [String: Int] = [:]
        if let previous, now > previous.at {
            let seconds = now - previous.at
            rates = (
                Double(result.totals[.published] - previous.published) / seconds,
                Double(result.totals[.scheduled] - previous.scheduled) / seconds
            )
            for (reason, count) in result.connectionErrors where reason.hasPrefix("connection lost") {
                let new = count - (previous.errors[reason] ?? 0)
                if new > 0 { lost[reason] = new }
            }
        }
        previous = (result.totals[.published], result.totals[.scheduled], result.connectionErrors, now)
        guard !streams.isEmpty else { return }
        var text = Self.event("status", status(view, rates: rates))
        for (reason, count) in lost.sorted(by: { $0.key < $1.key }) {
            text += Self.event("lost", "{\"reason\":\(JSONText.quoted(reason)),\"count\":\(count)}")
        }
        send(text)
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
        guard let data = try? JSONEncoder().encode(reload) else { return }
        send(Self.event("reload", String(decoding: data, as: UTF8.self)))
    }

    private func send(_ text: String) {
        let bytes = Array(text.utf8)
        for stream in streams { stream.send(bytes) }
    }

    private func status(_ view: DevsimService.View, rates: (published: Double, scheduled: Double)?) -> String {
        let result = view.live.result
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
        let groups = result.groups.map { group in
            "{\"name\":\(JSONText.quoted(group.name)),\"connectionsUp\":\(group.totals.connectionsUp),"
                + Figure.allCases.map { "\"\($0.stringValue)\":\(group.totals[$0])" }.joined(separator: ",")
                + (view.live.latestPayloads[group.name].map { ",\"latestPayload\":\(JSONText.quoted($0))" } ?? "") + "}"
        }
        fields.append("\"groups\":[\(groups.joined(separator: ","))]")
        return "{" + fields.joined(separator: ",") + "}"
    }

    /// One event in the stream's format: its type, its data on one line, a blank line.
    static func event(_ type: String, _ data: String) -> String {
        "event: \(type)\ndata: \(data)\n\n"
    }
}
