/// Where a run stands in its load profiles (`stages:`) and its capacity search, and the messages
/// a second the fleet aims at now: `Fleet.Live.position`, made in one place from the stages'
/// `StageTracker` and the search's `CapacityStepper`, so that the live page and `/metrics`
/// cannot tell it apart.
public struct RunPosition: Sendable, Equatable {
    /// The stage under way of one load profile.
    public struct Stage: Sendable, Equatable {
        /// The device group whose own profile it is; `nil` for the scenario's.
        public var group: String? = nil
        /// 1-based; `nil` once the last stage is over, whose target then holds.
        public var stage: Int?
        public var count: Int
        /// As the report writes it: `20/s` (each device's), `x2`, `100 devices`.
        public var target: String?
        /// Seconds into the stage, and its planned length.
        public var seconds: Double
        public var plannedSeconds: Double
    }

    /// The capacity search's step (`--find-capacity`).
    public struct Step: Sendable, Equatable {
        /// 1-based: the step under way, or the next one while the fleet connects or cools down.
        public var step: Int
        public var phase: Phase
        /// The step's rate as a multiple of the scenarios'.
        public var multiplier: Double

        public enum Phase: String, Sendable, Equatable {
            case connecting = "waiting for the connections"
            case warmingUp = "warming up"
            case measuring
            case awaitingArrivals = "waiting for its messages to arrive"
            case coolingDown = "cooling down at the scenarios' rates"
            case done = "over"
        }
    }

    /// The scenario's profile first, then the groups' own.
    public var stages: [Stage] = []
    public var step: Step? = nil
    /// The fleet's messages a second that the stages, or the search's step, set now: what the
    /// profiles and the step ask, not what commands (`pause`, `rate`) made of it since. `nil`
    /// in a run with neither.
    public var targetPerSecond: Double? = nil

    public init() {}

    /// `stages` and `step` as the tracker and the stepper give them; the target from the devices
    /// of `plan` at `seconds` into the run, or from the search's step.
    package init(stages: [Stage], step: Step?, capacityBase: Double?, plan: FleetPlan, seconds: Double) {
        self.stages = stages
        self.step = step
        if let step, let capacityBase {
            let atScenarioRates = step.phase == .connecting || step.phase == .coolingDown
            targetPerSecond = capacityBase * (atScenarioRates ? 1 : step.multiplier)
        } else if !stages.isEmpty {
            // Every device, those without a profile at their steady rate: the whole fleet's aim.
            let sum = plan.connections.reduce(0) { sum, connection in
                connection.devices.reduce(sum) { $0 + $1.perSecond * ($1.profile?.multiplier(at: seconds) ?? 1) }
            }
            // A group at `publish: max` has no rate to aim at.
            targetPerSecond = sum.isFinite ? sum : nil
        }
    }
}
