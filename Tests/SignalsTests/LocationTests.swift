import Testing
import Signals

/// The GPS track: distance, shared model, parameters.
@Suite struct LocationTests {
    /// Great-circle distance in metres (haversine).
    static func distance(_ a: (Double, Double), _ b: (Double, Double)) -> Double {
        let radians = Double.pi / 180
        let dLat = (b.0 - a.0) * radians
        let dLon = (b.1 - a.1) * radians
        let h = sin2(dLat / 2) + cosine(a.0 * radians) * cosine(b.0 * radians) * sin2(dLon / 2)
        return 2 * LocationModel.earthRadius * asin(h.squareRoot())
    }

    // Series are enough at test precision and keep the test free of the C library.
    static func sine(_ x: Double) -> Double {
        var term = x, sum = x
        for n in 1..<12 {
            term *= -x * x / Double((2 * n) * (2 * n + 1))
            sum += term
        }
        return sum
    }
    static func cosine(_ x: Double) -> Double { sine(x + Double.pi / 2) }
    static func sin2(_ x: Double) -> Double { sine(x) * sine(x) }
    static func asin(_ x: Double) -> Double {
        // Newton on sin(y) = x, for the small angles of these tests.
        var y = x
        for _ in 0..<20 { y -= (sine(y) - x) / cosine(y) }
        return y
    }

    static func track(
        _ parameters: [String: TestParameters.Value], id: String = "truck-1", steps: Int,
        interval: Double = 1
    ) throws -> [(Double, Double)] {
        let latitude = try recipe("location", TestParameters(parameters.merging(["coordinate": .string("latitude")]) { $1 }))
        let longitude = try recipe("location", TestParameters(parameters.merging(["coordinate": .string("longitude")]) { $1 }))
        let harness = GeneratorHarness([latitude, longitude], id: id, interval: interval)
        return (0..<steps).map { _ in
            let values = harness.nextValues()
            return (values[0].number!, values[1].number!)
        }
    }

    @Test func movesSpeedTimesTimeInAStraightLine() throws {
        let points = try Self.track(
            [
                "lat": .number(52.52), "lon": .number(13.40), "speed": .number(10),
                "heading": .number(60), "turn": .number(0),
            ], steps: 1001)
        #expect(points[0].0 == 52.52 && points[0].1 == 13.40)
        // 1000 s at 10 m/s.
        #expect(Swift.abs(Self.distance(points[0], points[1000]) - 10_000) < 50)
        // Heading 60°: north-east, more east than north.
        #expect(points[1000].0 > 52.52 && points[1000].1 > 13.40)
    }

    @Test func aWanderingTrackStillCoversSpeedTimesTime() throws {
        let points = try Self.track(
            ["lat": .number(-33.86), "lon": .number(151.21), "speed": .number(15), "turn": .number(10)],
            steps: 601, interval: 0.5)
        let path = zip(points, points.dropFirst()).map { Self.distance($0, $1) }.reduce(0, +)
        // 300 s at 15 m/s along the path; the heading turned, so the straight line is shorter.
        #expect(Swift.abs(path - 4500) < 45)
        #expect(Self.distance(points[0], points[600]) < path)
    }

    @Test func theFieldsOfOneDeviceReadOneModel() throws {
        let parameters: [String: TestParameters.Value] = ["lat": .number(35), "lon": .number(139), "speed": .number(20)]
        let recipes = try ["latitude", "longitude", "heading"].map { coordinate in
            try recipe("location", TestParameters(parameters.merging(["coordinate": .string(coordinate)]) { $1 }))
        }
        let harness = GeneratorHarness(recipes)
        #expect(harness.context.models.count == 1)
        let model = try #require(harness.context.models.first as? LocationModel)
        for _ in 0..<100 {
            let values = harness.nextValues()
            #expect(values == [.number(model.latitude), .number(model.longitude), .number(model.heading)])
        }
        // A second device has a model of its own, heading its own way.
        let other = try Self.track(parameters, id: "truck-2", steps: 101)
        let mine = try Self.track(parameters, id: "truck-1", steps: 101)
        #expect(other[100] != mine[100])
        #expect(mine[100] == (try Self.track(parameters, id: "truck-1", steps: 101))[100])
    }

    @Test func shorthandAndDefaults() throws {
        let shorthand = try #require(try recipe("location", TestParameters(shorthand: "lon")) as? LocationRecipe)
        #expect(shorthand.coordinate == .longitude && shorthand.speed == 10 && shorthand.heading == nil)
        #expect(shorthand.latitude == LocationRecipe.defaultStart.latitude)
        let start = try #require(
            try recipe(
                "location",
                TestParameters([
                    "coordinate": .string("latitude"),
                    "start": .list(["48.85", "2.35"]),
                ])) as? LocationRecipe)
        #expect(start.latitude == 48.85 && start.longitude == 2.35)
    }

    @Test func spreadStartsEachDeviceNearTheStart() throws {
        let parameters: [String: TestParameters.Value] = [
            "lat": .number(40), "lon": .number(-74), "spread": .number(1000),
            "speed": .number(0),
        ]
        let starts = try (1...50).map { try Self.track(parameters, id: "van-\($0)", steps: 1)[0] }
        #expect(starts.allSatisfy { Self.distance($0, (40, -74)) <= 1001 })
        #expect(starts.contains { Self.distance($0, (40, -74)) > 500 })
    }

    @Test func crossingAPoleComesBackDown() throws {
        let points = try Self.track(
            [
                "lat": .number(89.99), "lon": .number(0), "speed": .number(100), "heading": .number(0),
                "turn": .number(0),
            ], steps: 101)
        #expect(points.allSatisfy { (-90...90).contains($0.0) && (-180..<180).contains($0.1) })
        #expect(points[100].0 < 89.99 && Swift.abs(points[100].1) > 179)
    }

    @Test func parameterErrorsNameTheKey() {
        #expect(parameterError("location", TestParameters(shorthand: "altitude"))?.key == nil)
        #expect(parameterError("location", TestParameters())?.key == "coordinate")
        let base: [String: TestParameters.Value] = ["coordinate": .string("latitude")]
        func error(_ extra: [String: TestParameters.Value]) -> ParameterError? {
            parameterError("location", TestParameters(base.merging(extra) { $1 }))
        }
        #expect(error(["lat": .number(91), "lon": .number(0)])?.key == "lat")
        #expect(error(["lat": .number(1)])?.key == "lon")
        #expect(error(["speed": .number(-1)])?.key == "speed")
        #expect(error(["turn": .number(-1)])?.key == "turn")
        #expect(error(["start": .list(["1"])])?.key == "start")
        #expect(error(["coordinate": .string("north")])?.key == "coordinate")
    }
}
