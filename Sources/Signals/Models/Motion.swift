/// The motion profiles a scenario may name. Adding one is a case here, its lines in `MotionState`
/// and a file with its `MotionProfile`.
package enum Motion: String, Sendable, CaseIterable {
    /// Resting: gravity, bias and sensor noise only.
    case still
    /// Carried by someone walking: steps at about 2 Hz, ±0.2–0.3 g vertically.
    case walking
    /// Carried by someone running: steps at 2.5–3 Hz, peaks near 1 g, with harmonics.
    case running
    /// Shaken in a hand: 5–8 Hz, a couple of g, mostly side to side, noisy.
    case shaking
    /// Riding in a vehicle: road bumps at 0.5–3 Hz, an occasional pothole, engine vibration.
    case vehicle

}
