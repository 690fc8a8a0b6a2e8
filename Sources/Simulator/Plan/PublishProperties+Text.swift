import MQTT
import Report

/// How the dry run and `devsim sample` show the MQTT 5 properties a device's ticks carry, in the
/// scenario's own words.
extension PublishProperties {
    /// `{"userProperties":{"site":"plant-1"},"messageExpiry":300,…}`: the dry run's `properties`.
    package var json: String {
        var members: [String] = []
        if !userProperties.isEmpty {
            let pairs = userProperties.map { JSONText.quoted($0.name) + ":" + JSONText.quoted($0.value) }
            members.append("\"userProperties\":{" + pairs.joined(separator: ",") + "}")
        }
        if let messageExpiry { members.append("\"messageExpiry\":\(messageExpiry)") }
        if let contentType { members.append("\"contentType\":" + JSONText.quoted(contentType)) }
        if let payloadFormat { members.append("\"payloadFormatIndicator\":" + JSONText.quoted(payloadFormat.name)) }
        if let responseTopic { members.append("\"responseTopic\":" + JSONText.quoted(responseTopic)) }
        if let correlationData {
            members.append("\"correlationData\":" + JSONText.quoted(String(decoding: correlationData, as: UTF8.self)))
        }
        if topicAlias { members.append("\"topicAlias\":\"auto\"") }
        return "{" + members.joined(separator: ",") + "}"
    }

    /// `userProperties site=plant-1 device=meter-1, messageExpiry 300s, …`: `sample`'s line.
    package var summary: String {
        var parts: [String] = []
        if !userProperties.isEmpty {
            parts.append("userProperties " + userProperties.map { "\($0.name)=\($0.value)" }.joined(separator: " "))
        }
        if let messageExpiry { parts.append("messageExpiry \(messageExpiry)s") }
        if let contentType { parts.append("contentType \(contentType)") }
        if let payloadFormat { parts.append("payloadFormatIndicator \(payloadFormat.name)") }
        if let responseTopic { parts.append("responseTopic \(responseTopic)") }
        if let correlationData { parts.append("correlationData \(String(decoding: correlationData, as: UTF8.self))") }
        if topicAlias { parts.append("topicAlias auto") }
        return parts.joined(separator: ", ")
    }
}
