/// What a command may do to a field (its `command:`).
package enum FieldCommand: Sendable, Equatable {
    /// `command: set`: a commanded value replaces the generator's from the next publish on, until
    /// the next command: a switched light, a selected mode, a fixed number.
    case set
    /// `command: { setpoint: 0.5/min }`: a commanded number is where the field's centre (a
    /// `randomWalk`'s mean, a `sine`'s middle) moves, at this many units a second, noise and
    /// walk going on around it: a thermostat told 22 °C drifts there and stays near it.
    case setpoint(perSecond: Double)
}

/// A value a command carries for a field, as JSON gives it or a bare payload reads.
package enum CommandValue: Sendable, Equatable {
    case number(Double)
    case bool(Bool)
    case text(String)

    /// A bare payload (`ON`, `22.5`, `heat`), as Home Assistant sends to a field's own topic.
    package init(bare text: String) {
        if let number = Double(text), number.isFinite {
            self = .number(number)
        } else if text == "true" || text == "false" {
            self = .bool(text == "true")
        } else {
            self = .text(text)
        }
    }

    package var words: String {
        switch self {
        case .number(let value): value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
        case .bool(let value): String(value)
        case .text(let text): "'\(text)'"
        }
    }
}

/// Why a command changed nothing, in words; `reason` is the same for every device, so that a
/// log line once per reason says it.
package struct CommandRejection: Error, Sendable, Equatable {
    package var reason: String
    /// The reason without what the sender wrote: one log line for each, however many values.
    package var kind: String

    package init(_ reason: String, kind: String? = nil) {
        self.reason = reason
        self.kind = kind ?? reason
    }

    package static func == (lhs: CommandRejection, rhs: CommandRejection) -> Bool { lhs.reason == rhs.reason }
}

/// A field's commanded state: the value that replaces its generator's, or the setpoint its
/// centre moves toward. Confined, as the field is, to its device's loop.
struct CommandedState {
    /// `command: set`'s value.
    var value: SignalValue?
    /// `command: setpoint`: where the centre is going, how fast, and how far it has moved.
    var target: Double?
    var offset = 0.0
    /// The sample time the offset was last moved at; `nil` until the first publish after a
    /// setpoint, so the move is made in the device's own time, the same in every run.
    var movedAt: Double?

    /// The centre's offset at `time`, moved toward `target − centre` by at most `perSecond` per
    /// second since the last publish.
    mutating func offset(at time: Double, centre: Double, perSecond: Double) -> Double {
        guard let target else { return offset }
        let wanted = target - centre
        if let movedAt, time > movedAt {
            let step = perSecond * (time - movedAt)
            offset = abs(wanted - offset) <= step ? wanted : offset + (wanted > offset ? step : -step)
        }
        movedAt = time
        return offset
    }
}
