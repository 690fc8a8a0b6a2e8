/// `location: latitude` or `location: { coordinate: longitude, lat: 52.52, lon: 13.40, speed: 12,
/// heading: 90, turn: 5, spread: 500 }`: a GPS tracker. The fields of one device with the same
/// parameters read one `LocationModel`, so its `latitude`, `longitude` and `heading` (degrees
/// clockwise from north) describe one track.
///
/// - `lat`, `lon` (or `start: [lat, lon]`): where the track starts, in degrees; by default Tokyo
///   Station (35.6812, 139.7671).
/// - `speed`: metres per second, default 10.
/// - `heading`: the starting heading in degrees; by default each device draws its own.
/// - `turn`: σ of the heading's wander over one second, in degrees; default 5, 0 for a straight line.
/// - `spread`: each device starts at a random point within this many metres; default 0.
///
/// Coordinates come with full precision; the field's `decimals` rounds them (6 is about 10 cm).
package struct LocationRecipe: GeneratorRecipe {
    package static let key = "location"

    package enum Coordinate: String, Sendable, CaseIterable {
        case latitude, longitude, heading
    }

    package var coordinate: Coordinate
    package var latitude: Double
    package var longitude: Double
    package var speed: Double
    package var heading: Double?
    package var turn: Double
    package var spread: Double

    package static let defaultStart = (latitude: 35.6812, longitude: 139.7671)

    package init(
        coordinate: Coordinate, latitude: Double = defaultStart.latitude,
        longitude: Double = defaultStart.longitude, speed: Double = 10, heading: Double? = nil,
        turn: Double = 5, spread: Double = 0
    ) {
        self.coordinate = coordinate
        self.latitude = latitude
        self.longitude = longitude
        self.speed = speed
        self.heading = heading
        self.turn = turn
        self.spread = spread
    }

    package init(parameters: any ParameterSource) throws(ParameterError) {
        if let shorthand = parameters.shorthand {
            self.init(coordinate: try Self.coordinate(shorthand, key: nil))
            return
        }
        guard let text = try parameters.string("coordinate") else {
            throw ParameterError(key: "coordinate", "coordinate is required (latitude, longitude or heading)")
        }
        let coordinate = try Self.coordinate(text, key: "coordinate")
        var latitude = try parameters.finiteNumber("lat")
        var longitude = try parameters.finiteNumber("lon")
        if let start = try parameters.numbers("start") {
            guard latitude == nil && longitude == nil else {
                throw ParameterError(key: "start", "give start or lat and lon, not both")
            }
            guard start.count == 2 else {
                throw ParameterError(key: "start", "start must be [latitude, longitude]")
            }
            (latitude, longitude) = (start[0], start[1])
        }
        if (latitude == nil) != (longitude == nil) {
            throw ParameterError(key: latitude == nil ? "lat" : "lon", "lat and lon go together: give both or neither")
        }
        let lat = latitude ?? Self.defaultStart.latitude
        let lon = longitude ?? Self.defaultStart.longitude
        guard (-90...90).contains(lat) else {
            throw ParameterError(key: latitude == nil ? "start" : "lat", "latitude must be from -90 to 90, found \(lat)")
        }
        guard (-180...180).contains(lon) else {
            throw ParameterError(key: longitude == nil ? "start" : "lon", "longitude must be from -180 to 180, found \(lon)")
        }
        let speed = try parameters.finiteNumber("speed") ?? 10
        guard speed >= 0 else { throw ParameterError(key: "speed", "speed must not be negative") }
        let heading = try parameters.finiteNumber("heading")
        let turn = try parameters.finiteNumber("turn") ?? 5
        guard turn >= 0 else { throw ParameterError(key: "turn", "turn must not be negative") }
        let spread = try parameters.finiteNumber("spread") ?? 0
        guard spread >= 0 else { throw ParameterError(key: "spread", "spread must not be negative") }
        self.init(
            coordinate: coordinate, latitude: lat, longitude: lon, speed: speed, heading: heading,
            turn: turn, spread: spread)
    }

    private static func coordinate(_ text: String, key: String?) throws(ParameterError) -> Coordinate {
        switch text {
        case "lat": return .latitude
        case "lon", "lng": return .longitude
        default:
            guard let coordinate = Coordinate(rawValue: text) else {
                throw ParameterError(key: key, "coordinate must be latitude, longitude or heading, found '\(text)'")
            }
            return coordinate
        }
    }

    package func makeGenerator(context: GeneratorContext) -> any FieldGenerator {
        let key = "\(latitude)/\(longitude)/\(speed)/\(heading.map { "\($0)" } ?? "random")/\(turn)/\(spread)"
        let model = context.sharedModel(key: key) { seed in
            LocationModel(
                seed: seed, latitude: latitude, longitude: longitude, speed: speed, heading: heading,
                turn: turn, spread: spread)
        }
        return Generator(model: model, coordinate: coordinate)
    }

    struct Generator: FieldGenerator {
        let model: LocationModel
        let coordinate: Coordinate

        func value(at instant: PublishInstant) -> SignalValue {
            switch coordinate {
            case .latitude: .number(model.latitude)
            case .longitude: .number(model.longitude)
            case .heading: .number(model.heading)
            }
        }
    }
}
