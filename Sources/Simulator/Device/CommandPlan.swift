import FoundationEssentials
import Scenario
import Signals

/// Where one device listens for commands (its group's `commands:`), resolved: the subscription
/// and which of its levels name a field or a request.
package struct CommandPlan: Sendable, Equatable {
    /// The command topic with the device's placeholders filled and `{field}`, `{requestId}` as `+`.
    package var filter: String
    package var fieldLevel: Int?
    package var requestLevel: Int?
    /// Where a request is answered: the response template, filled but for `{requestId}` (and
    /// `{status}`, 200 or the refusal's, where the answer's topic carries it, as Azure's does).
    package var response: String?
    /// The request id is this query parameter of the topic's last level rather than a level of
    /// its own: `$rid` of Azure IoT Hub's `$iothub/methods/POST/{method}/?$rid=42`. Such a
    /// request's payload is a JSON value, the field's new value.
    package var requestParameter: String?
    /// Further subscriptions of the device, each read its own way: Azure IoT Hub's direct
    /// methods beside its cloud-to-device messages.
    package var also: [CommandPlan] = []

    package init(commands: Commands, name: String, index: Int, id: String) {
        let levels = commands.topic.render(name: name, index: index, id: id).split(separator: "/", omittingEmptySubsequences: false)
        fieldLevel = levels.firstIndex { $0 == "{field}" }
        requestLevel = levels.firstIndex { $0 == "{requestId}" }
        filter = levels.map { $0 == "{field}" || $0 == "{requestId}" ? "+" : String($0) }.joined(separator: "/")
        response = commands.response?.render(name: name, index: index, id: id)
    }

    /// A plan of fixed filters, made in code rather than from a `commands:` topic (Azure IoT
    /// Hub's): `filter` may end in `#`.
    package init(filter: String, fieldLevel: Int? = nil, requestParameter: String? = nil, response: String? = nil) {
        self.filter = filter
        self.fieldLevel = fieldLevel
        self.requestParameter = requestParameter
        self.response = response
    }

    /// Every filter the device subscribes to for its commands.
    package var filters: [String] { [filter] + also.map(\.filter) }

    /// The plan, this one or one of `also`, whose filter takes a message on `topic`.
    package func route(for topic: some StringProtocol) -> CommandPlan? {
        matches(topic) ? self : also.first { $0.matches(topic) }
    }

    /// Whether a message on `topic` is for this device, as its filter says (a last level `#`
    /// takes the rest, as MQTT's does).
    package func matches(_ topic: some StringProtocol) -> Bool {
        let wanted = filter.split(separator: "/", omittingEmptySubsequences: false)
        let levels = topic.split(separator: "/", omittingEmptySubsequences: false)
        if wanted.last == "#" {
            let prefix = wanted.dropLast()
            return levels.count >= prefix.count && zip(prefix, levels).allSatisfy { $0 == "+" || $0 == $1 }
        }
        return wanted.count == levels.count && zip(wanted, levels).allSatisfy { $0 == "+" || $0 == $1 }
    }

    /// The request id in `topic`'s last level, as the query parameter `requestParameter`:
    /// `42` of `…/?$rid=42`.
    func requestID(inQueryOf topic: some StringProtocol) -> String? {
        guard let name = requestParameter, let last = topic.split(separator: "/", omittingEmptySubsequences: false).last,
            last.first == "?"
        else { return nil }
        for pair in last.dropFirst().split(separator: "&") where pair.hasPrefix(name + "=") {
            return String(pair.dropFirst(name.count + 1))
        }
        return nil
    }

    /// The first topic `device` publishes on that its own filter takes in: its telemetry, a
    /// field's, its availability, or its replies (a level with the request's id matches any);
    /// nil for none. What it published would come back as a command, counted as one, and a
    /// reply taken for a request is answered again, without end.
    package func echo(of device: DevicePlan) -> String? {
        let published = [device.topic] + device.fieldTopics + [device.availability?.topic].compactMap { $0 }
        if let topic = published.first(where: { route(for: $0) != nil }) { return topic }
        guard let response else { return nil }
        let wanted = filter.split(separator: "/", omittingEmptySubsequences: false)
        let levels = response.split(separator: "/", omittingEmptySubsequences: false)
        let hears =
            wanted.count == levels.count && zip(wanted, levels).allSatisfy { $0 == "+" || $0 == $1 || $1.contains("{requestId}") }
        return hears ? response : nil
    }
}
