import Scenario
import Signals

/// What one replaying device sends (its group's `recording:`), made once as the plan is made:
/// its topics and payloads with the recorded id replaced by its own, when each is due, and in
/// each payload, with `timestamps: now`, where the time it is sent goes. Sending a message then
/// only copies its bytes and formats the time.
package struct ReplayPlan: Sendable {
    /// The recording's path, for what shows the plan.
    package var file: String
    /// Each topic the device publishes to with the retain flag it was recorded with: a message's
    /// `slot` is its place here.
    package var topics: [String]
    package var retains: [Bool]
    /// Each message's seconds from the start of the recording, ascending.
    package var times: [Double]
    package var messages: [Message]
    /// The typical seconds between two messages of a topic (`ReplayCursor.typicalInterval`).
    package var typicalInterval: Double
    /// Seconds of the recording from one lap's first message to the next lap's: the span from
    /// the first message to the last, and a typical interval.
    package var period: Double
    package var speed: Double
    package var loops: Bool

    package struct Message: Sendable, Equatable {
        package var slot: Int
        package var payload: [UInt8]
        /// Where the time it is sent is written, with `timestamps: now`, in payload order.
        package var stamps: [Stamp]
    }

    /// A recorded time in a payload, by its bytes, and the form it was written in.
    package struct Stamp: Sendable, Equatable {
        package var range: Range<Int>
        package var form: TimestampForm
    }

    /// `source` as the device `id` plays it: every occurrence of the recorded id in the topics
    /// and text payloads replaced by `id` (`nil`: as recorded).
    package init(source: RecordingSource, id: String?) {
        file = source.file
        speed = source.speed
        loops = source.loop
        var rewrite: (String, String)?
        if let recorded = source.recordedID, let id, recorded != id { rewrite = (recorded, id) }
        var slots: [String: Int] = [:]
        var topics: [String] = []
        var retains: [Bool] = []
        var messages: [Message] = []
        var topicOfMessage: [Int] = []
        var topicIndex: [String: Int] = [:]
        messages.reserveCapacity(source.messages.count)
        for recorded in source.messages {
            let topic =
                rewrite.map {
                    String(
                        decoding: Self.replacing(Array($0.0.utf8), with: Array($0.1.utf8), in: Array(recorded.topic.utf8)), as: UTF8.self)
                }
                ?? recorded.topic
            let key = (recorded.retain ? "1" : "0") + topic
            let slot =
                slots[key]
                ?? {
                    topics.append(topic)
                    retains.append(recorded.retain)
                    slots[key] = topics.count - 1
                    return topics.count - 1
                }()
            var payload = recorded.payload
            if let (recordedID, id) = rewrite, recorded.text != nil {
                payload = Self.replacing(Array(recordedID.utf8), with: Array(id.utf8), in: payload)
            }
            messages.append(Message(slot: slot, payload: payload, stamps: []))
            let topicNumber =
                topicIndex[topic]
                ?? {
                    topicIndex[topic] = topicIndex.count
                    return topicIndex.count - 1
                }()
            topicOfMessage.append(topicNumber)
        }
        if source.timestamps == .now { Self.findStamps(in: &messages, topics: topicOfMessage) }
        self.topics = topics
        self.retains = retains
        self.messages = messages
        times = source.messages.map(\.time)
        typicalInterval = ReplayCursor.typicalInterval(times: times, topics: topicOfMessage)
        period = (times.last ?? 0) - (times.first ?? 0) + typicalInterval
    }

    /// Its messages' deadlines, the recording's time 0 at `start`.
    package func cursor(start: UInt64) -> ReplayCursor {
        ReplayCursor(times: times, period: period, speed: speed, loops: loops, start: start)
    }

    /// Message `index`'s payload appended to `buffer`, its timestamps, if any, those of
    /// `wallClock` (seconds since 1970).
    package func write(_ index: Int, wallClock: Double, into buffer: inout PayloadBuffer) {
        let message = messages[index]
        guard !message.stamps.isEmpty else {
            buffer.append(contentsOf: message.payload)
            return
        }
        message.payload.withUnsafeBytes { bytes in
            var from = 0
            for stamp in message.stamps {
                buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[from..<stamp.range.lowerBound]))
                stamp.form.write(wallClock, into: &buffer)
                from = stamp.range.upperBound
            }
            buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[from...]))
        }
    }

    /// The timestamps of each message: per topic, the JSON members (nested ones too) whose every
    /// recorded value is a time (`TimestampForm`).
    private static func findStamps(in messages: inout [Message], topics: [Int]) {
        var scanned: [[(path: String, range: Range<Int>, form: TimestampForm?)]] = []
        // Per topic, each path's verdict: a time every time so far, or not.
        var isTime: [Int: [String: Bool]] = [:]
        for (message, topic) in zip(messages, topics) {
            let scalars = (RecordedJSON.scalars(message.payload) ?? []).map { scalar in
                (scalar.path, scalar.range, TimestampForm.of(message.payload[scalar.range]))
            }
            scanned.append(scalars)
            for (path, _, form) in scalars {
                isTime[topic, default: [:]][path] = isTime[topic]?[path] != false && form != nil
            }
        }
        for index in messages.indices {
            let verdicts = isTime[topics[index]] ?? [:]
            messages[index].stamps = scanned[index].compactMap { scalar in
                guard verdicts[scalar.path] == true, let form = scalar.form else { return nil }
                return Stamp(range: scalar.range, form: form)
            }
        }
    }

    /// `bytes` with every whole occurrence of `old` replaced by `new`: one not next to a letter,
    /// digit, `-` or `_`, which would make it part of a longer name (`a` in `data`, `room-1` in
    /// `room-10`). `bytes` itself, its storage shared, where there is none: copies of a big
    /// recording hold only what differs.
    static func replacing(_ old: [UInt8], with new: [UInt8], in bytes: [UInt8]) -> [UInt8] {
        guard !old.isEmpty, bytes.count >= old.count else { return bytes }
        func extendsName(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "_"), 0x80...:
                true
            default: false
            }
        }
        func occurs(at index: Int) -> Bool {
            bytes[index] == old[0] && index + old.count <= bytes.count && bytes[index..<(index + old.count)].elementsEqual(old)
                && (index == 0 || !extendsName(bytes[index - 1]))
                && (index + old.count == bytes.count || !extendsName(bytes[index + old.count]))
        }
        guard let first = bytes.indices.first(where: occurs) else { return bytes }
        var result = Array(bytes[..<first])
        result.reserveCapacity(bytes.count)
        var index = first
        while index < bytes.count {
            if occurs(at: index) {
                result += new
                index += old.count
            } else {
                result.append(bytes[index])
                index += 1
            }
        }
        return result
    }
}
