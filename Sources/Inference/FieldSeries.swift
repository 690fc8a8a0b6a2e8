import Scenario

/// One payload field's values as recorded, device by device, in time order: what a field's
/// generator is fitted to (`FieldFit`).
struct FieldSeries: Sendable {
    /// A message's value of the field: `nil` where the message had no such key.
    struct Point: Sendable {
        var time: Double
        var value: RecordedJSON?
    }

    /// One recorded device's points.
    struct Source: Sendable {
        var id: String
        var points: [Point]
    }

    var sources: [Source]

    /// Every point, the devices' one after another.
    var points: [Point] { sources.flatMap(\.points) }

    /// The values present and not null.
    var values: [RecordedJSON] {
        points.compactMap { point in
            guard let value = point.value, value != .null else { return nil }
            return value
        }
    }

    /// The series of each key of the object values, in the order the keys first appear: a
    /// point whose value is no object (or absent) has the key absent.
    func members() -> [(key: String, series: FieldSeries)] {
        var keys: [String] = []
        var seen = Set<String>()
        for value in values {
            guard case .object(let members) = value else { continue }
            for member in members where seen.insert(member.key).inserted { keys.append(member.key) }
        }
        return keys.map { key in
            let sources = sources.map { source in
                Source(
                    id: source.id,
                    points: source.points.map { point in
                        guard case .object(let members)? = point.value else { return Point(time: point.time, value: nil) }
                        return Point(time: point.time, value: members.first { $0.key == key }?.value)
                    })
            }
            return (key, FieldSeries(sources: sources))
        }
    }
}
