import Testing
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Signals

/// The accelerometer as a scenario sees it: statistics of what its fields publish, sampled once
/// per publish at the sample instants unless a test says otherwise.
@Suite struct AccelerometerTests {
    typealias Axis = AccelerometerRecipe.Axis

    /// Every sample of one device, `fields` per sample, for `seconds` at `rate` Hz.
    func samples(
        _ motion: Motion, orientation: Orientation = .flat, id: String = "phone-1", seed: UInt64 = 42,
        rate: Double = 50, seconds: Double = 20, axes: [Axis] = [.x, .y, .z]
    ) -> [[Double]] {
        var device = DeviceDriver(
            axes.map {
                FieldSpec(
                    name: $0.rawValue,
                    generator: AccelerometerRecipe(axis: $0, motion: motion, orientation: orientation))
            },
            style: .flat, id: id, seed: seed, sampleInterval: 1 / rate)
        return (0..<Int(seconds * rate)).map { numbers(in: device.publish(elapsed: Double($0) / rate)) }
    }

    func column(_ readings: [[Double]], _ axis: Int) -> [Double] {
        readings.map { $0[axis] }
    }

    func magnitudes(_ readings: [[Double]]) -> [Double] {
        readings.map { ($0[0] * $0[0] + $0[1] * $0[1] + $0[2] * $0[2]).squareRoot() }
    }

    // MARK: Gravity and orientation

    @Test(arguments: Orientation.allCases)
    func atRestTheMagnitudeIsOneG(orientation: Orientation) {
        for id in ["phone-1", "phone-2", "phone-3"] {
            let readings = samples(.still, orientation: orientation, id: id, seconds: 10)
            #expect(abs(mean(magnitudes(readings)) - 1) < 0.02)
            for axis in 0..<3 {
                let sigma = standardDeviation(column(readings, axis))
                #expect(sigma > 0.002 && sigma < 0.006, "noise σ on axis \(axis): \(sigma)")
            }
        }
    }

    @Test func gravityFallsOnTheAxisTheOrientationSays() {
        for id in ["phone-1", "phone-2", "phone-3", "phone-4"] {
            let flat = samples(.still, orientation: .flat, id: id, seconds: 2)
            #expect(mean(column(flat, 2)) < -0.98)
            #expect(abs(mean(column(flat, 0))) < 0.1 && abs(mean(column(flat, 1))) < 0.1)

            let upright = samples(.still, orientation: .upright, id: id, seconds: 2)
            #expect(mean(column(upright, 1)) < -0.93)
            #expect(abs(mean(column(upright, 0))) < 0.1)
            // Held leaning back, the screen tips up: a little of gravity on -z.
            let lean = mean(column(upright, 2))
            #expect(lean < -0.07 && lean > -0.36, "upright z \(lean)")

            let pocket = samples(.still, orientation: .pocket, id: id, seconds: 2)
            #expect(mean(column(pocket, 1)) < -0.9)
            #expect(abs(mean(column(pocket, 0))) < 0.2)
            #expect(abs(mean(column(pocket, 2))) > 0.1 && abs(mean(column(pocket, 2))) < 0.36)
        }
    }

    @Test func devicesDifferInTiltAndBias() {
        for orientation in Orientation.allCases {
            let one = samples(.still, orientation: orientation, id: "phone-1", seconds: 2)
            let two = samples(.still, orientation: orientation, id: "phone-2", seconds: 2)
            #expect(abs(mean(column(one, 0)) - mean(column(two, 0))) > 0.001)
        }
    }

    @Test func gravityParameterScalesTheRestingReading() {
        let recipe = AccelerometerRecipe(axis: .magnitude, noise: 0, gravity: 0.5)
        var device = DeviceDriver([FieldSpec(name: "m", generator: recipe)], style: .flat, sampleInterval: 0.1)
        // Bias (σ 0.004 g per axis) is all that separates the reading from the asked gravity.
        #expect(abs(numbers(in: device.publish(elapsed: 1))[0] - 0.5) < 0.02)
    }

    @Test func magnitudeIsTheLengthOfTheSameSample() {
        for motion in Motion.allCases {
            let readings = samples(motion, seconds: 2, axes: [.x, .y, .z, .magnitude])
            for reading in readings {
                let length = (reading[0] * reading[0] + reading[1] * reading[1] + reading[2] * reading[2]).squareRoot()
                #expect(abs(reading[3] - length) < 1e-12)
            }
        }
    }

    // MARK: Motion profiles

    @Test func walkingBouncesAtAboutTwoHertz() {
        let still = column(samples(.still), 2)
        for id in ["phone-1", "phone-2", "phone-3"] {
            let walking = column(samples(.walking, id: id), 2)
            #expect(standardDeviation(walking) > 10 * standardDeviation(still))
            #expect(standardDeviation(walking) > 0.1 && standardDeviation(walking) < 0.3)
            #expect(abs(mean(walking) + 1) < 0.05)
            let peak = dominantFrequency(walking, rate: 50)
            #expect(peak >= 1.75 && peak <= 2.25, "walking peak \(peak) Hz")
        }
    }

    @Test func walkingBouncesAlongWhateverIsUp() {
        // Upright in a hand, up is the phone's y: the steps show there, not on x.
        let upright = samples(.walking, orientation: .upright)
        let vertical = column(upright, 1)
        #expect(standardDeviation(vertical) > 0.1)
        #expect(standardDeviation(column(upright, 0)) < standardDeviation(vertical) / 2)
        let peak = dominantFrequency(vertical, rate: 50)
        #expect(peak >= 1.75 && peak <= 2.25, "upright walking peak \(peak) Hz")
    }

    @Test func runningIsFasterAndHarderThanWalking() {
        for id in ["phone-1", "phone-2", "phone-3"] {
            let walking = column(samples(.walking, id: id), 2)
            let running = column(samples(.running, id: id), 2)
            let walkingPeak = dominantFrequency(walking, rate: 50)
            let runningPeak = dominantFrequency(running, rate: 50)
            #expect(runningPeak > walkingPeak)
            #expect(runningPeak >= 2.4 && runningPeak <= 3.1, "running peak \(runningPeak) Hz")
            #expect(standardDeviation(running) > 2 * standardDeviation(walking))
            // Landings reach about 1 g beyond gravity.
            let hardest = running.map { abs($0 + 1) }.max() ?? 0
            #expect(hardest > 0.7 && hardest < 1.6, "running peak acceleration \(hardest) g")
        }
    }

    @Test func shakingIsLargeFastAndMostlyOnOneAxis() {
        for id in ["phone-1", "phone-2", "phone-3"] {
            let shaking = samples(.shaking, id: id)
            let walking = samples(.walking, id: id)
            let sideways = column(shaking, 0)
            #expect(variance(sideways) > 20 * variance(column(walking, 2)))
            #expect(standardDeviation(sideways) > 2.5 * standardDeviation(column(shaking, 1)))
            #expect(standardDeviation(sideways) > 2.5 * standardDeviation(column(shaking, 2)))
            let peak = dominantFrequency(sideways, rate: 50, from: 0.5, to: 12)
            #expect(peak >= 4.7 && peak <= 8.3, "shaking peak \(peak) Hz")
        }
    }

    @Test func vehicleIsLowFrequencyWithOccasionalJolts() {
        for id in ["phone-1", "phone-2", "phone-3"] {
            let vertical = column(samples(.vehicle, id: id, seconds: 60), 2)
            let still = column(samples(.still, id: id, seconds: 60), 2)
            #expect(standardDeviation(vertical) > 3 * standardDeviation(still))
            #expect(standardDeviation(vertical) < 0.1)
            let peak = dominantFrequency(vertical, rate: 50, from: 0.2, to: 24)
            #expect(peak >= 0.4 && peak <= 3.1, "vehicle peak \(peak) Hz")
            // Most of the motion is below 3.5 Hz; summed over the 1/60 Hz bins of a minute.
            let centred = vertical.map { $0 - mean(vertical) }
            let bins = (1..<1500).map { Double($0) / 60 }
            let spectrum = bins.map { power(centred, rate: 50, at: $0) }
            let low = zip(bins, spectrum).filter { $0.0 <= 3.5 }.map(\.1).reduce(0, +)
            let all = spectrum.reduce(0, +)
            #expect(low / all > 0.7, "share below 3.5 Hz: \(low / all)")
            // A pothole now and then: well beyond the road's few hundredths of a g.
            #expect(centred.map(abs).max() ?? 0 > 0.1)
        }
    }

    @Test func vehicleEngineShowsOnlyWhenTheRateCarriesIt() {
        // At 200 Hz the 20–30 Hz engine is a clear line; at 50 Hz it is left out rather than
        // folded into a false 20–25 Hz or lower tone.
        let fast = column(samples(.vehicle, rate: 200, seconds: 10), 2)
        let centredFast = fast.map { $0 - mean(fast) }
        let band = Array(stride(from: 15.0, through: 35, by: 0.1))
        let powers = band.map { power(centredFast, rate: 200, at: $0) }
        let strongest = powers.indices.max { powers[$0] < powers[$1] }!
        #expect(band[strongest] >= 19.9 && band[strongest] <= 30.1, "engine at \(band[strongest]) Hz")
        #expect(powers[strongest] > 20 * powers.sorted()[powers.count / 2])

        let slow = column(samples(.vehicle, rate: 50, seconds: 10), 2)
        let centredSlow = slow.map { $0 - mean(slow) }
        let high = stride(from: 8.0, through: 24.9, by: 0.1).map { power(centredSlow, rate: 50, at: $0) }
        let low = stride(from: 0.5, through: 3, by: 0.1).map { power(centredSlow, rate: 50, at: $0) }
        #expect(high.max()! < low.max()! / 50)
    }

    // MARK: Aggregation

    /// Samples at 50 Hz of x, y, z and magnitude, published at every sample.
    func everySample(_ motion: Motion, count: Int, id: String = "phone-1") -> [[Double]] {
        samples(motion, id: id, rate: 50, seconds: Double(count) / 50, axes: [.x, .y, .z, .magnitude])
    }

    @Test func meanAndMaxCoverTheSamplesSinceTheLastPublish() {
        for motion in [Motion.walking, .shaking, .vehicle] {
            let all = everySample(motion, count: 60)
            func field(_ name: String, _ axis: Axis, _ aggregate: AccelerometerRecipe.Aggregate) -> FieldSpec {
                FieldSpec(name: name, generator: AccelerometerRecipe(axis: axis, motion: motion, aggregate: aggregate))
            }
            var device = DeviceDriver(
                [
                    field("meanX", .x, .mean), field("maxX", .x, .max), field("y", .y, .latest),
                    field("maxZ", .z, .max), field("meanM", .magnitude, .mean), field("maxM", .magnitude, .max),
                ], style: .flat, sampleInterval: 1 / 50.0)
            // Publishes that carry samples 0…9, 10…29, 30…30 and 31…59.
            var first = 0
            for last in [9, 29, 30, 59] {
                let values = numbers(in: device.publish(elapsed: Double(last) / 50))
                let window = Array(all[first...last])
                #expect(abs(values[0] - mean(column(window, 0))) < 1e-12)
                #expect(values[1] == column(window, 0).max())
                #expect(values[2] == all[last][1])
                #expect(values[3] == column(window, 2).max())
                #expect(abs(values[4] - mean(column(window, 3))) < 1e-12)
                #expect(abs(values[5] - column(window, 3).max()!) < 1e-12)
                first = last + 1
            }
        }
    }

    @Test func aPublishWithNoNewSampleRepeatsTheLastWindow() {
        let recipe = AccelerometerRecipe(axis: .z, motion: .walking, aggregate: .mean)
        var device = DeviceDriver([FieldSpec(name: "z", generator: recipe)], style: .flat, sampleInterval: 1)
        let first = device.publish(elapsed: 2.5)
        #expect(device.publish(elapsed: 2.9) == first)
        #expect(device.publish(elapsed: 3) != first)
    }

    @Test func withoutASampleRateTheMeanIsTheOneSample() {
        let fields = [
            FieldSpec(name: "mean", generator: AccelerometerRecipe(axis: .x, motion: .running, aggregate: .mean)),
            FieldSpec(name: "latest", generator: AccelerometerRecipe(axis: .x, motion: .running)),
        ]
        var device = DeviceDriver(fields, style: .flat)
        for second in 0..<20 {
            let values = numbers(in: device.publish(elapsed: Double(second)))
            #expect(values[0] == values[1])
        }
    }

    @Test func onlyAggregatingModelsDependOnHistory() {
        func models(_ aggregates: [AccelerometerRecipe.Aggregate]) -> [any SampledModel] {
            let context = GeneratorContext(deviceID: "phone-1", index: 1, runSeed: 42, sampleInterval: 0.1)
            for aggregate in aggregates {
                _ = AccelerometerRecipe(axis: .x, motion: .vehicle, aggregate: aggregate).makeGenerator(context: context)
            }
            return context.models
        }
        #expect(models([.latest, .latest]).map(\.dependsOnHistory) == [false])
        #expect(models([.latest, .max]).map(\.dependsOnHistory) == [true])
        #expect(models([.mean]).map(\.dependsOnHistory) == [true])
        for motion in Motion.allCases {
            #expect(!AccelerometerModel(seed: Seed(1), motion: motion).dependsOnHistory)
        }
    }

    @Test func catchingUpAfterAGapStillAveragesEverySample() {
        let all = everySample(.walking, count: 500)
        let recipe = AccelerometerRecipe(axis: .y, motion: .walking, aggregate: .mean)
        var device = DeviceDriver([FieldSpec(name: "y", generator: recipe)], style: .flat, sampleInterval: 1 / 50.0)
        let value = numbers(in: device.publish(elapsed: 499 / 50.0))[0]
        #expect(abs(value - mean(column(all, 1))) < 1e-12)
    }

    // MARK: Determinism and sharing

    @Test(arguments: Motion.allCases)
    func sameSeedAndIDGiveTheSameValues(motion: Motion) {
        let first = samples(motion, orientation: .pocket, seconds: 2)
        #expect(first == samples(motion, orientation: .pocket, seconds: 2))
        let otherID = samples(motion, orientation: .pocket, id: "phone-2", seconds: 2)
        let otherSeed = samples(motion, orientation: .pocket, seed: 43, seconds: 2)
        #expect(zip(first, otherID).allSatisfy { $0 != $1 })
        #expect(zip(first, otherSeed).allSatisfy { $0 != $1 })
    }

    @Test func modelReadingsArePureFunctionsOfTheSampleIndex() {
        let seed = Seed(7).derive("phone-1")
        let inOrder = AccelerometerModel(seed: seed, motion: .vehicle, sampleInterval: 0.01)
        let skipping = AccelerometerModel(seed: seed, motion: .vehicle, sampleInterval: 0.01)
        var readings: [SIMD3<Double>] = []
        for index in 0..<1000 {
            inOrder.advance(to: SampleInstant(index: index, time: Double(index) * 0.01))
            readings.append(inOrder.reading)
        }
        for index in stride(from: 999, to: 0, by: -97) {
            skipping.advance(to: SampleInstant(index: index, time: Double(index) * 0.01))
            #expect(skipping.reading == readings[index])
        }
    }

    @Test func axesOfOneDeviceComeFromOneModel() {
        let xOnly = samples(.walking, seconds: 2, axes: [.x]).map { $0[0] }
        let xAndY = samples(.walking, seconds: 2, axes: [.x, .y]).map { $0[0] }
        let yThenX = samples(.walking, seconds: 2, axes: [.y, .x]).map { $0[1] }
        #expect(xOnly == xAndY)
        #expect(xOnly == yThenX)
    }

    @Test func aggregatingFieldsShareTheModelOfTheLatestOnes() {
        let latest = FieldSpec(name: "y", generator: AccelerometerRecipe(axis: .y, motion: .running))
        let meanX = FieldSpec(name: "x", generator: AccelerometerRecipe(axis: .x, motion: .running, aggregate: .mean))
        var alone = DeviceDriver([latest], style: .flat, sampleInterval: 0.1)
        var together = DeviceDriver([meanX, latest], style: .flat, sampleInterval: 0.1)
        for second in 1...20 {
            #expect(
                numbers(in: alone.publish(elapsed: Double(second)))[0]
                    == numbers(in: together.publish(elapsed: Double(second)))[1])
        }
    }

    @Test func differentSettingsMakeDifferentModels() {
        let context = GeneratorContext(deviceID: "phone-1", index: 1, runSeed: 42, sampleInterval: 0.1)
        for recipe in [
            AccelerometerRecipe(axis: .x), AccelerometerRecipe(axis: .y),
            AccelerometerRecipe(axis: .x, orientation: .upright), AccelerometerRecipe(axis: .x, motion: .walking),
            AccelerometerRecipe(axis: .x, noise: 0.01), AccelerometerRecipe(axis: .x, gravity: 0.5),
        ] {
            _ = recipe.makeGenerator(context: context)
        }
        #expect(context.models.count == 5)
    }

    @Test func withoutASampleRateTheModelStepsPerPublish() {
        var device = DeviceDriver([FieldSpec(name: "z", generator: AccelerometerRecipe(axis: .z))], style: .flat)
        let values = (0..<100).map { numbers(in: device.publish(elapsed: Double($0)))[0] }
        #expect(Set(values).count == values.count)
    }

    // MARK: Parameters

    @Test func parametersAndDefaults() throws {
        let shorthand = try #require(try recipe("accelerometer", TestParameters(shorthand: "magnitude")) as? AccelerometerRecipe)
        #expect(shorthand.axis == .magnitude && shorthand.motion == .still && shorthand.orientation == .flat)
        #expect(shorthand.noise == 0.004 && shorthand.gravity == 1 && shorthand.aggregate == .latest)
        let full = try #require(
            try recipe(
                "accelerometer",
                TestParameters([
                    "axis": .string("z"), "motion": .string("vehicle"), "orientation": .string("pocket"),
                    "noise": .number(0.01), "gravity": .number(0.98), "aggregate": .string("max"),
                ])) as? AccelerometerRecipe)
        #expect(full.axis == .z && full.motion == .vehicle && full.orientation == .pocket)
        #expect(full.noise == 0.01 && full.gravity == 0.98 && full.aggregate == .max)
    }

    @Test func parameterErrorsNameTheKeyAndTheChoices() {
        #expect(
            parameterError("accelerometer", TestParameters(shorthand: "w"))
                == ParameterError(key: nil, "axis must be one of x, y, z, magnitude, found 'w'"))
        #expect(
            parameterError("accelerometer", TestParameters())
                == ParameterError(key: "axis", "axis is required: one of x, y, z, magnitude"))
        #expect(
            parameterError("accelerometer", TestParameters(["axis": .string("x"), "motion": .string("flying")]))
                == ParameterError(key: "motion", "motion must be one of still, walking, running, shaking, vehicle, found 'flying'"))
        #expect(
            parameterError("accelerometer", TestParameters(["axis": .string("x"), "orientation": .string("sideways")]))
                == ParameterError(key: "orientation", "orientation must be one of flat, upright, pocket, found 'sideways'"))
        #expect(
            parameterError("accelerometer", TestParameters(["axis": .string("x"), "aggregate": .string("median")]))
                == ParameterError(key: "aggregate", "aggregate must be one of latest, mean, max, found 'median'"))
        #expect(
            parameterError("accelerometer", TestParameters(["axis": .string("x"), "aggregate": .number(1)]))?.key
                == "aggregate")
        #expect(
            parameterError("accelerometer", TestParameters(["axis": .string("x"), "gravity": .number(-1)]))?.key
                == "gravity")
    }
}

// MARK: Spectra

func variance(_ values: [Double]) -> Double {
    let sigma = standardDeviation(values)
    return sigma * sigma
}

/// The power of `values`, sampled at `rate` Hz, at `frequency` Hz, by the Goertzel algorithm:
/// one DFT term, with one cosine per call rather than one per sample.
func power(_ values: [Double], rate: Double, at frequency: Double) -> Double {
    let omega = 2 * Double.pi * frequency / rate
    let coefficient = 2 * cos(omega)
    var previous = 0.0, beforePrevious = 0.0
    for value in values {
        let current = value + coefficient * previous - beforePrevious
        beforePrevious = previous
        previous = current
    }
    return previous * previous + beforePrevious * beforePrevious - coefficient * previous * beforePrevious
}

/// The strongest frequency of `values` (centred first) between `from` and `to` Hz, in 0.01 Hz
/// steps: finer than the 1/duration resolution of any test, so that a tone between two steps
/// cannot fall into a null of the transform and lose to its own harmonic.
func dominantFrequency(_ values: [Double], rate: Double, from: Double = 0.5, to: Double = 5) -> Double {
    let average = mean(values)
    let centred = values.map { $0 - average }
    let frequencies = Array(stride(from: from, through: to, by: 0.01))
    let powers = frequencies.map { power(centred, rate: rate, at: $0) }
    return frequencies[powers.indices.max { powers[$0] < powers[$1] }!]
}
