/// The scenarios `devsim record` writes beside a recording: one that replays it, and one of
/// generators fitted to it (`inferred`).
public enum RecordingScenario {
    /// A scenario that replays `recording`, which is at `file` (relative to the scenario): a
    /// device group per recorded device (`Recording.devices()`), each one device that publishes
    /// its recorded messages as they came, with comments that say how to make a fleet of it.
    public static func replay(_ recording: Recording, file: String, name: String) -> String {
        var text = """
            # Replays the recording \(file) (devsim record). Each device group is one recorded device:
            # its topics are those whose id level names it (docs/recordings.md says how they were
            # grouped; move topics between groups if the guess is wrong). As written, each publishes what
            # was recorded, as it was. To make a fleet of one, set its count (100) and give its id a
            # template with {index} ("room-1-{index}"): each copy publishes the recorded messages with
            # the recorded id replaced by its own, in its topics and in its payloads' text.
            #   speed: 2x        plays twice as fast (0.5x half as fast)
            #   loop: true       starts again after the last message
            #   timestamps: now  rewrites the payloads' timestamps to the time each is sent
            name: \(quoted(name))
            devices:

            """
        var names = Set<String>()
        for device in recording.devices() {
            let topics =
                device.topics.count == 1
                ? quoted(device.topics[0]) : "[" + device.topics.map(quoted).joined(separator: ", ") + "]"
            text += """
                  - name: \(quoted(unique(device.id, among: &names)))
                    count: 1                  # copies of this device; 1 replays it as recorded
                    # its id; with a count above 1, a template such as \(quoted(device.id + "-{index}"))
                    id: \(quoted(device.id))
                    qos: \(device.qos)                    # the highest QoS its messages were recorded at
                    recording:
                      file: \(quoted(file))
                      topics: \(topics)
                      recordedID: \(quoted(device.id))
                      # speed: 1x
                      # loop: false
                      # timestamps: keep

                """
        }
        return text
    }

    /// `name`, or `name-2`, `name-3`… if `names` has it; then in `names`.
    package static func unique(_ name: String, among names: inout Set<String>) -> String {
        var candidate = name.isEmpty ? "device" : name
        var number = 1
        while names.contains(candidate) {
            number += 1
            candidate = (name.isEmpty ? "device" : name) + "-\(number)"
        }
        names.insert(candidate)
        return candidate
    }
}
