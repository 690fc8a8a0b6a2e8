/// How a device is held, which decides the axis gravity falls on. Axes are the phone's: x to the
/// right of the screen, y towards its top, z out of the screen; a reading is what iOS reports, so
/// the axis pointing up reads about −1 g.
///
/// No one holds a phone perfectly square: each device gets a small fixed tilt of its own.
package enum Orientation: String, Sendable, CaseIterable {
    /// On a table, screen up: z ≈ −1 g. Tilted by up to 5° each way.
    case flat
    /// Upright in a hand, portrait, screen towards the face: y ≈ −1 g, leaning back 5–20° so that
    /// a little of gravity falls on −z, and rolled by up to 5°.
    case upright
    /// Upright in a trouser pocket, screen towards the leg: y ≈ −1 g, pitched 8–20° forward or
    /// back with the thigh and rolled by up to 10°.
    case pocket

    /// The device's axes seen from the carrier's body: the device-frame unit vectors of the body's
    /// right, forward and up, with this device's tilt drawn from `traits`.
    func frame(traits: inout Xoshiro256StarStar) -> BodyFrame {
        let degree = Double.pi / 180
        // Pitch turns about the body's right axis (positive tips the top of the device forward,
        // away from the carrier); roll turns about the forward axis.
        let pitch: Double
        let roll: Double
        let base: BodyFrame
        switch self {
        case .flat:
            pitch = 5 * degree * (2 * traits.nextUnit() - 1)
            roll = 5 * degree * (2 * traits.nextUnit() - 1)
            base = BodyFrame(right: SIMD3(1, 0, 0), forward: SIMD3(0, 1, 0), up: SIMD3(0, 0, 1))
        case .upright:
            pitch = (5 + 15 * traits.nextUnit()) * degree
            roll = 5 * degree * (2 * traits.nextUnit() - 1)
            // The screen faces the carrier, so the device's z points backwards.
            base = BodyFrame(right: SIMD3(1, 0, 0), forward: SIMD3(0, 0, -1), up: SIMD3(0, 1, 0))
        case .pocket:
            let lean = (8 + 12 * traits.nextUnit()) * degree
            pitch = traits.nextUnit() < 0.5 ? -lean : lean
            roll = 10 * degree * (2 * traits.nextUnit() - 1)
            base = BodyFrame(right: SIMD3(1, 0, 0), forward: SIMD3(0, 0, -1), up: SIMD3(0, 1, 0))
        }
        return base.tilted(pitch: pitch, roll: roll)
    }
}

/// Where the carrier's right, forward and up point in the device's frame: three orthonormal
/// vectors, so that a body-frame acceleration `a` reads `right * a.x + forward * a.y + up * a.z`
/// on the device.
struct BodyFrame: Sendable {
    var right: SIMD3<Double>
    var forward: SIMD3<Double>
    var up: SIMD3<Double>

    @inline(__always)
    func deviceVector(_ body: SIMD3<Double>) -> SIMD3<Double> {
        right * body.x + forward * body.y + up * body.z
    }

    /// The frame of a device turned from this one by `pitch` about the body's right axis, then
    /// `roll` about its forward axis. Rotations keep lengths and angles, so the frame stays
    /// orthonormal and gravity's magnitude exact.
    func tilted(pitch: Double, roll: Double) -> BodyFrame {
        // The body's axes, seen from a device frame that is this one rotated: each body axis is
        // rotated the opposite way, expressed in this frame's (right, forward, up) coordinates.
        let (sinPitch, cosPitch) = (Math.sine(pitch), Math.cosine(pitch))
        let (sinRoll, cosRoll) = (Math.sine(roll), Math.cosine(roll))
        func rotate(_ v: SIMD3<Double>) -> SIMD3<Double> {
            // About right (x): tips forward (y) into up (z).
            let pitched = SIMD3(v.x, cosPitch * v.y - sinPitch * v.z, sinPitch * v.y + cosPitch * v.z)
            // About forward (y): tips up (z) into right (x).
            return SIMD3(
                cosRoll * pitched.x + sinRoll * pitched.z, pitched.y,
                -sinRoll * pitched.x + cosRoll * pitched.z)
        }
        return BodyFrame(
            right: deviceVector(rotate(SIMD3(1, 0, 0))),
            forward: deviceVector(rotate(SIMD3(0, 1, 0))),
            up: deviceVector(rotate(SIMD3(0, 0, 1))))
    }
}
