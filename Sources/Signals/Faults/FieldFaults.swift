/// The sensor faults a field declares, for testing alerts and dashboards against misbehaving
/// devices. Each is optional; a field without faults pays nothing for them.
///
/// Faults are drawn per publish from the field's seed, the fault's name and the publish index, so
/// with `--seed` a run's faults replay exactly like its values. They are applied after the field's
/// noise and clamps, in this order: drift, stuck, spike; dropout is decided first and, when it
/// fires, the value is not made at all.
package struct FieldFaults: Sendable, Equatable {
    /// A value jumps by `magnitude`, up or down at random, in one publish.
    package struct Spike: Sendable, Equatable {
        /// Chance per publish, 0…1.
        package var probability: Double
        package var magnitude: Double

        package init(probability: Double, magnitude: Double) {
            self.probability = probability
            self.magnitude = magnitude
        }
    }

    /// The value freezes at the last one published, for `duration` seconds of the device's clock.
    package struct Stuck: Sendable, Equatable {
        /// Chance per publish, while not stuck, that the value sticks.
        package var probability: Double
        /// Seconds the value stays frozen.
        package var duration: Double

        package init(probability: Double, duration: Double) {
            self.probability = probability
            self.duration = duration
        }
    }

    /// The field goes missing from a publish.
    package struct Dropout: Sendable, Equatable {
        package enum Mode: String, Sendable, CaseIterable {
            /// The field is left out of the payload (and a template placeholder writes nothing).
            case omit
            /// The field is written as `null`.
            case null
        }

        /// Chance per publish, 0…1.
        package var probability: Double
        package var mode: Mode

        package init(probability: Double, mode: Mode = .omit) {
            self.probability = probability
            self.mode = mode
        }
    }

    /// The value wanders off steadily: `perHour` units are added per hour of the device's clock.
    package struct Drift: Sendable, Equatable {
        package var perHour: Double

        package init(perHour: Double) {
            self.perHour = perHour
        }
    }

    package var spike: Spike?
    package var stuck: Stuck?
    package var dropout: Dropout?
    package var drift: Drift?

    /// The names a scenario uses under `faults:`.
    package static let kinds = ["spike", "stuck", "dropout", "drift"]

    package init(spike: Spike? = nil, stuck: Stuck? = nil, dropout: Dropout? = nil, drift: Drift? = nil) {
        self.spike = spike
        self.stuck = stuck
        self.dropout = dropout
        self.drift = drift
    }

    package var isEmpty: Bool {
        spike == nil && stuck == nil && dropout == nil && drift == nil
    }
}

/// How many times each fault fired. A spike, a dropout and a drift count once per publish they
/// change; a stuck value counts once per episode, when it sticks (not once per frozen publish).
package struct FaultCounts: Sendable, Equatable, Codable {
    package var spike = 0
    package var stuck = 0
    package var dropout = 0
    package var drift = 0

    package init(spike: Int = 0, stuck: Int = 0, dropout: Int = 0, drift: Int = 0) {
        self.spike = spike
        self.stuck = stuck
        self.dropout = dropout
        self.drift = drift
    }

    package var isZero: Bool {
        spike == 0 && stuck == 0 && dropout == 0 && drift == 0
    }

    package static func + (a: FaultCounts, b: FaultCounts) -> FaultCounts {
        FaultCounts(
            spike: a.spike + b.spike, stuck: a.stuck + b.stuck,
            dropout: a.dropout + b.dropout, drift: a.drift + b.drift)
    }

    package static func += (a: inout FaultCounts, b: FaultCounts) {
        a = a + b
    }
}
