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
    /// Where a request is answered: the response template, filled but for `{requestId}`.
    package var response: String?

    package init(commands: Commands, name: String, index: Int, id: String) {
        let levels = commands.topic.render(name: name, index: index, id: id).split(separator: "/", omittingEmptySubsequences: false)
        fieldLevel = levels.firstIndex { $0 == "{field}" }
        requestLevel = levels.firstIndex { $0 == "{requestId}" }
        filter = levels.map { $0 == "{field}" || $0 == "{requestId}" ? "+" : String($0) }.joined(separator: "/")
        response = commands.response?.render(name: name, index: index, id: id)
    }

    /// Whether a message on `topic` is for this device, as its filter says.
    package func matches(_ topic: some StringProtocol) -> Bool {
        let wanted = filter.split(separator: "/", omittingEmptySubsequences: false)
        let levels = topic.split(separator: "/", omittingEmptySubsequences: false)
        return wanted.count == levels.count && zip(wanted, levels).allSatisfy { $0 == "+" || $0 == $1 }
    }

    /// The first topic `device` publishes on that its own filter takes in: its telemetry, a
    /// field's, its availability, or its replies (a level with the request's id matches any);
    /// nil for none. What it published would come back as a command, counted as one, and a
    /// reply taken for a request is answered again, without end.
    package func echo(of device: DevicePlan) -> String? {
        let published = [device.topic] + device.fieldTopics + [device.availability?.topic].compactMap { $0 }
        if let topic = published.first(where: matches) { return topic }
        guard let response else { return nil }
        let wanted = filter.split(separator: "/", omittingEmptySubsequences: false)
        let levels = response.split(separator: "/", omittingEmptySubsequences: false)
        let hears =
            wanted.count == levels.count && zip(wanted, levels).allSatisfy { $0 == "+" || $0 == $1 || $1.contains("{requestId}") }
        return hears ? response : nil
    }
}
