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
