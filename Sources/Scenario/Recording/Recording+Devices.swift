extension Recording {
    /// The recorded devices: the recording's topics grouped by the level that names a device.
    ///
    /// That level is found by comparing topics: a level whose value varies between topics that
    /// are otherwise alike (`building/room-1/climate`, `building/room-2/climate`: level 1) names
    /// devices. Of several such levels, one whose values all hold a digit wins (`room-1` beside
    /// `climate` and `door`), then the earliest (devices are named before what they measure:
    /// `home/kitchen/temperature`, `home/hall/temperature`, `home/kitchen/humidity` is kitchen and
    /// hall). Every topic long enough is then grouped by its value at that level, so
    /// `building/room-1/door` joins `building/room-1/climate`. A topic with no such level (a single
    /// topic, or one shorter than the others) is a device of its own, named by its first level
    /// that holds a digit, or else its last. It is a guess, made to be easy to correct: the
    /// scenarios written from it list each device's topics.
    public func devices() -> [RecordedDevice] {
        let topics = self.topics
        let levels = topics.map { $0.split(separator: "/", omittingEmptySubsequences: false).map(String.init) }
        let idLevel = Self.idLevel(of: levels)
        var order: [String] = []
        var found: [String: RecordedDevice] = [:]
        var deviceOfTopic: [String: String] = [:]
        for (topic, parts) in zip(topics, levels) {
            let level = idLevel.flatMap { $0 < parts.count ? $0 : nil } ?? Self.singleIDLevel(of: parts)
            let id = parts[level]
            // The level is part of the key: a device's id is at one level in all its topics.
            let key = "\(level)/\(id)"
            deviceOfTopic[topic] = key
            if found[key] == nil {
                order.append(key)
                found[key] = RecordedDevice(id: id, idLevel: level, topics: [], messages: [])
            }
            found[key]?.topics.append(topic)
        }
        for message in messages {
            if let key = deviceOfTopic[message.topic] { found[key]?.messages.append(message) }
        }
        return order.compactMap { found[$0] }
    }

    /// The level that names devices among topics split into `levels`, or `nil` when no level
    /// varies between otherwise alike topics.
    static func idLevel(of levels: [[String]]) -> Int? {
        var best: (digits: Bool, level: Int)?
        let deepest = levels.map(\.count).max() ?? 0
        for level in 0..<deepest {
            var valuesByRest: [[String]: Set<String>] = [:]
            for parts in levels where level < parts.count {
                var rest = parts
                rest[level] = "\u{0}"
                valuesByRest[rest, default: []].insert(parts[level])
            }
            let varying = valuesByRest.values.filter { $0.count > 1 }.flatMap { $0 }
            guard !varying.isEmpty else { continue }
            let digits = varying.allSatisfy { $0.contains(where: \.isNumber) }
            if best == nil || (digits && best?.digits == false) { best = (digits, level) }
        }
        return best?.level
    }

    /// The level that names the device of a topic alone: the first that holds a digit, else the
    /// last.
    static func singleIDLevel(of parts: [String]) -> Int {
        parts.firstIndex { $0.contains(where: \.isNumber) } ?? parts.count - 1
    }
}
