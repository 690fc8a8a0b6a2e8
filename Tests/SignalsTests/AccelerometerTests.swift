import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Signals

@Suite struct AccelerometerTests {
    func samples(_ motion: Motion, id: String = "phone-1", rate: Double = 50, seconds: Double = 20,
                 axes: [AccelerometerRecipe.Axis] = [.x, .y, .z]) -> [[Double]] {
        var device = DeviceDriver(axes.map { FieldSpec(name: $0.rawValue, generator: AccelerometerRecipe(axis: $0, motion: motion)) },
                                  style: .flat, id: id, sampleInterval: 1 / rate)
        return (0..<Int(seconds * rate)).map { numbers(in: device.publish(elapsed: Double($0) / rate)) }
    }

    @Test func stillPhoneFeelsOneGMostlyDown() {
        for id in ["phone-1", "phone-2", "phone-3"] {
            let readings = samples(.still, id: id)
            let magnitudes = readings.map { ($0[0] * $0[0] + $0[1] * $0[1] + $0[2] * $0[2]).squareRoot() }
            #expect(abs(mean(magnitudes) - 1) < 0.02)
            #expect(mean(readings.map { $0[2] }) < -0.98)
            #expect(abs(mean(readings.map { $0[0] })) < 0.1)
            #expect(abs(mean(readings.map { $0[1] })) < 0.1)
            for axis in 0..<3 {
                let sigma = standardDeviation(readings.map { $0[axis] })
                #expect(sigma > 0.001 && sigma < 0.01)
            }
        }
    }

    @Test func devicesDifferInTiltAndBias() {
        let one = mean(samples(.still, id: "phone-1", seconds: 2).map { $0[0] })
        let two = mean(samples(.still, id: "phone-2", seconds: 2).map { $0[0] })
        #expect(abs(one - two) > 0.001)
    }

    @Test func walkingBouncesAtAboutTwoHertz() {
        let rate = 50.0
        let still = samples(.still, rate: rate).map { $0[2] }
        let walking = samples(.walking, rate: rate).map { $0[2] }
        #expect(standardDeviation(walking) > 10 * standardDeviation(still))
        #expect(standardDeviation(walking) > 0.1)
        #expect(abs(mean(walking) + 1) < 0.05)
        // The strongest frequency of the vertical axis, by a plain DFT over 0.5…5 Hz.
        let centred = walking.map { $0 - mean(walking) }
        let frequencies = stride(from: 0.5, through: 5, by: 0.05)
        let power = frequencies.map { frequency -> Double in
            var re = 0.0, im = 0.0
            for (n, value) in centred.enumerated() {
                let angle = 2 * Double.pi * frequency * Double(n) / rate
                re += value * cos(angle)
                im -= value * sin(angle)
            }
            return re * re + im * im
        }
        let peak = Array(frequencies)[power.indices.max { power[$0] < power[$1] }!]
        #expect(peak >= 1.7 && peak <= 2.3)
    }

    @Test func axesOfOneDeviceComeFromOneModel() {
        let xOnly = samples(.walking, seconds: 2, axes: [.x]).map { $0[0] }
        let xAndY = samples(.walking, seconds: 2, axes: [.x, .y]).map { $0[0] }
        let yThenX = samples(.walking, seconds: 2, axes: [.y, .x]).map { $0[1] }
        #expect(xOnly == xAndY)
        #expect(xOnly == yThenX)
    }

    @Test func withoutASampleRateTheModelStepsPerPublish() {
        var device = DeviceDriver([FieldSpec(name: "z", generator: AccelerometerRecipe(axis: .z))], style: .flat)
        let values = (0..<100).map { numbers(in: device.publish(elapsed: Double($0)))[0] }
        #expect(Set(values).count == values.count)
    }
}
