/// The scenarios `devsim record` writes beside a recording.
public enum RecordingScenario {
    /// A scenario that replays `recording`, which is at `file` (relative to the scenario): a
    /// device group per recorded topic, each one device.
    public static func replay(_ recording: Recording, file: String, name: String) -> String {
        var text = """
            # Replays the recording \(file) (devsim record): each device group is one recorded device.
            # Set a group's count to make a fleet of it; docs/recordings.md says how.
            name: \(name)
            devices:

            """
        for (index, topic) in recording.topics.enumerated() {
            let qos = recording.messages.lazy.filter { $0.topic == topic }.map(\.qos.rawValue).max() ?? 0
            text += """
                  - name: source-\(index + 1)
                    qos: \(qos)
                    recording:
                      file: \(file)
                      topics: "\(topic)"

                """
        }
        return text
    }
}
