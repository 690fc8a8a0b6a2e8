/// A subscription's topic filter as MQTT 3.1.1 (4.7) and 5 (4.8.2) define it: levels split by
/// `/`, `+` for any one level, `#` for any rest, each alone in its level and `#` last; or a
/// shared subscription, `$share/NAME/FILTER`, whose messages the broker deals out among the
/// subscribers of that NAME (round-robin in mosquitto) rather than sending each to all.
package struct TopicFilter: Sendable, Hashable, CustomStringConvertible {
    /// As written, `$share/` and all: what is sent in SUBSCRIBE.
    package let text: String
    /// The share's name of `$share/NAME/…`; `nil` for a filter every subscriber gets all of.
    package let shareName: String?
    /// The filter the topics are matched against: `text` without its `$share/NAME/`.
    package let filter: String

    package static let sharePrefix = "$share/"

    /// Reads `text`; the error says, in a few words, what makes it no filter.
    package init(_ text: String) throws(TopicFilterError) {
        self.text = text
        guard !text.isEmpty else { throw TopicFilterError("a topic filter cannot be empty") }
        if text.hasPrefix(Self.sharePrefix) {
            let rest = text.dropFirst(Self.sharePrefix.count)
            guard !rest.isEmpty else { throw TopicFilterError("a shared subscription names its share and a filter: $share/NAME/FILTER") }
            guard let slash = rest.firstIndex(of: "/") else {
                throw TopicFilterError("a shared subscription is $share/NAME/FILTER, and '\(text)' has no filter after its name")
            }
            let name = String(rest[..<slash])
            guard !name.isEmpty else { throw TopicFilterError("a shared subscription names its share: $share/NAME/FILTER") }
            guard !name.contains(where: { $0 == "+" || $0 == "#" }) else {
                throw TopicFilterError("the share's name '\(name)' cannot hold the wildcards '+' or '#'")
            }
            shareName = name
            filter = String(rest[rest.index(after: slash)...])
            guard !filter.isEmpty else {
                throw TopicFilterError("a shared subscription is $share/NAME/FILTER, and '\(text)' has no filter after its name")
            }
        } else {
            shareName = nil
            filter = text
        }
        try Self.checkLevels(filter)
    }

    package var isShared: Bool { shareName != nil }

    package var description: String { text }

    private static func checkLevels(_ filter: String) throws(TopicFilterError) {
        let levels = filter.split(separator: "/", omittingEmptySubsequences: false)
        for (position, level) in levels.enumerated() {
            if level.contains("#") {
                guard level == "#" else { throw TopicFilterError("'#' must be a whole level, such as fleet/#, not '\(level)'") }
                guard position == levels.count - 1 else {
                    throw TopicFilterError("'#' matches the rest of a topic, so it must be the last level: '\(filter)'")
                }
            }
            if level.contains("+"), level != "+" {
                throw TopicFilterError("'+' must be a whole level, such as fleet/+/telemetry, not '\(level)'")
            }
        }
    }

    /// Whether the filter (without its share) matches `topic`, as a broker decides it: a topic
    /// of `$` (such as `$SYS/…`) matches no filter that starts with a wildcard.
    package func matches(_ topic: String) -> Bool {
        if topic.hasPrefix("$"), filter.hasPrefix("+") || filter.hasPrefix("#") { return false }
        return Self.filter(filter, matches: topic)
    }

    /// A topic that both filters (without their shares) match, `nil` when none is: a client
    /// subscribed to both gets a message on it once for each (mosquitto does so). A level that
    /// either filter leaves to a wildcard is `x` in it.
    package func commonTopic(with other: TopicFilter) -> String? {
        let mine = filter.split(separator: "/", omittingEmptySubsequences: false)
        let theirs = other.filter.split(separator: "/", omittingEmptySubsequences: false)
        // A topic of `$` matches no filter that starts with a wildcard.
        let isWildcard = { (level: Substring) in level == "+" || level == "#" }
        if mine[0].hasPrefix("$") && isWildcard(theirs[0]) || theirs[0].hasPrefix("$") && isWildcard(mine[0]) { return nil }
        var topic: [Substring] = []
        var index = 0
        while true {
            let level = index < mine.count ? mine[index] : nil
            let otherLevel = index < theirs.count ? theirs[index] : nil
            if level == "#" || otherLevel == "#" {
                // `#` matches the parent level too: any rest of the other filter will do.
                let rest = (level == "#" ? theirs : mine).dropFirst(index)
                topic += rest.filter { $0 != "#" }.map { $0 == "+" ? "x" : $0 }
                return topic.isEmpty ? "x" : topic.joined(separator: "/")
            }
            guard let level, let otherLevel else { return level == nil && otherLevel == nil ? topic.joined(separator: "/") : nil }
            if level == "+" {
                topic.append(otherLevel == "+" ? "x" : otherLevel)
            } else if otherLevel == "+" || level == otherLevel {
                topic.append(level)
            } else {
                return nil
            }
            index += 1
        }
    }

    /// Whether `filter` (with `+` and `#`, no share) matches `topic` level by level.
    package static func filter(_ filter: String, matches topic: String) -> Bool {
        let levels = filter.split(separator: "/", omittingEmptySubsequences: false)
        let topicLevels = topic.split(separator: "/", omittingEmptySubsequences: false)
        for (position, level) in levels.enumerated() {
            // `a/#` matches `a` too: `#` stands for the parent level and any below it.
            if level == "#" { return true }
            guard position < topicLevels.count else { return false }
            if level != "+", level != topicLevels[position] { return false }
        }
        return levels.count == topicLevels.count
    }
}

/// Why a text is no topic filter, in words for a scenario's error.
package struct TopicFilterError: Error, Equatable, CustomStringConvertible {
    package let message: String
    package init(_ message: String) { self.message = message }
    package var description: String { message }
}
