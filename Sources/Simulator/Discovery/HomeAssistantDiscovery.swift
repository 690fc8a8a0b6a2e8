import Scenario
import Signals

/// Home Assistant's MQTT discovery for one device (`discovery: homeassistant`): one config per
/// entity, retained, at `<prefix>/<component>/<node_id>/<object_id>/config`, made from the
/// device's fields:
///
/// - a number is a `sensor` (`unit`, `deviceClass` and `stateClass` from the field; a state class
///   of `measurement` by default, `total_increasing` for a `counter`), text a `sensor` too;
/// - a boolean is a `binary_sensor`, its template turning the JSON `true` into `ON`;
/// - the `location` latitude and longitude fields together are one `device_tracker` that reads
///   them as its JSON attributes (`latitude`, `longitude`, `gps_accuracy`); a heading is a sensor;
/// - a `timestamp` is no entity: it says when, not what;
/// - a field a command sets (`command:`, with the group's `commands:`) is a `switch` (a boolean),
///   a `select` (a choice) or a `number` (a number, or a setpoint), with its `command_topic`: the
///   field's own topic for a `{field}` commands topic (Home Assistant's bare value), else the
///   device's with a `command_template` that writes `{"field": value}`.
///
/// Every entity reads the device's own topic (`state_topic`), with a `value_template` that takes
/// its field out of the payload style in use (`{{ value_json.params.temperature }}` for the
/// Milkcocoa style), names the device's availability topic where there is one, and shares one
/// `device` block. Pure: made once per device when the fleet is planned.
package struct HomeAssistantDiscovery: Sendable, Equatable {
    package struct Message: Sendable, Equatable {
        package var topic: String
        package var payload: [UInt8]
    }

    /// Each entity's config.
    package var configs: [Message]
    /// Where Home Assistant says `online` after every start (its birth message): the configs are
    /// sent again then.
    package var statusTopic: String

    /// The empty retained messages that make Home Assistant delete the entities.
    package var removals: [Message] { configs.map { Message(topic: $0.topic, payload: []) } }

    /// Components a device's fields become, by what they are.
    package enum Component: String, Sendable {
        case sensor
        case binarySensor = "binary_sensor"
        case deviceTracker = "device_tracker"
        case `switch`
        case number
        case select
    }

    package init(
        deviceID: String, group: String, topic: String, payload: PayloadSpec, availability: DevicePlan.Announcement?,
        commands: CommandPlan? = nil, discovery: Discovery, version: String
    ) {
        let node = Self.identifier(deviceID)
        statusTopic = discovery.prefix + "/status"
        let perField = payload.style == .perField
        let value = payload.style == .milkcocoa ? "value_json.params" : "value_json"
        var shared: [(String, String)] = []
        if let availability {
            shared += [
                ("availability_topic", JSONText.quoted(availability.topic)),
                ("payload_available", JSONText.quoted(String(decoding: availability.online, as: UTF8.self))),
                ("payload_not_available", JSONText.quoted(String(decoding: availability.offline, as: UTF8.self))),
            ]
        }
        let device =
            "{\"identifiers\":[\(JSONText.quoted("devsim_" + node))],\"name\":\(JSONText.quoted(deviceID)),"
            + "\"model\":\(JSONText.quoted(discovery.model ?? group)),"
            + "\"manufacturer\":\(JSONText.quoted(discovery.manufacturer ?? "devsim")),\"sw_version\":\(JSONText.quoted(version))}"
        var configs: [Message] = []
        /// The topic the entity being made reads; `nil` for a tracker, which reads its attributes.
        var entityTopic: String? = topic
        func add(_ component: Component, object: String, name: String, _ fields: [(String, String)]) {
            let objectID = Self.identifier(object)
            let state = entityTopic.map { [("state_topic", JSONText.quoted($0))] } ?? []
            let entries =
                [("unique_id", JSONText.quoted("devsim_\(node)_\(objectID)")), ("name", JSONText.quoted(name))] + fields + state + shared
                + [("device", device)]
            let json = "{" + entries.map { "\(JSONText.quoted($0.0)):\($0.1)" }.joined(separator: ",") + "}"
            configs.append(
                Message(topic: "\(discovery.prefix)/\(component.rawValue)/\(node)/\(objectID)/config", payload: Array(json.utf8)))
        }
        var latitude: (reference: String, topic: String)?, longitude: (reference: String, topic: String)?
        for (path, field) in Self.leaves(payload.fields, under: []) {
            guard let recipe = field.generator else { continue }
            // In the per-field style a field is alone on its topic: a bare value, or the object
            // of its group.
            let stateTopic = perField ? topic + "/" + path[0] : topic
            let reference =
                perField
                ? (path.count == 1 ? "value" : "value_json" + path.dropFirst().map(Self.member).joined())
                : value + path.map(Self.member).joined()
            let isTrue = perField && path.count == 1 ? "\(reference) == 'true'" : reference
            entityTopic = stateTopic
            let name = Self.words(path)
            var hints: [(String, String)] = []
            if let unit = field.entity.unit { hints.append(("unit_of_measurement", JSONText.quoted(unit))) }
            if let deviceClass = field.entity.deviceClass { hints.append(("device_class", JSONText.quoted(deviceClass))) }
            if let location = recipe as? LocationRecipe, location.coordinate != .heading {
                if location.coordinate == .latitude {
                    latitude = latitude ?? (reference, stateTopic)
                } else {
                    longitude = longitude ?? (reference, stateTopic)
                }
                continue
            }
            if field.command != nil, let commands, commands.requestLevel == nil {
                let path = path.joined(separator: ".")
                var topic: [(String, String)]
                if let level = commands.fieldLevel {
                    var levels = commands.filter.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
                    levels[level] = path
                    topic = [("command_topic", JSONText.quoted(levels.joined(separator: "/")))]
                } else {
                    let quotes = recipe.valueKind == .number ? "" : "\""
                    topic = [
                        ("command_topic", JSONText.quoted(commands.filter)),
                        ("command_template", JSONText.quoted("{\(JSONText.quoted(path)): \(quotes){{ value }}\(quotes)}")),
                    ]
                }
                switch (recipe.valueKind, recipe.options) {
                case (.bool, _):
                    // A switch takes only the device classes outlet and switch.
                    let switchHints = hints.filter { $0.0 != "device_class" || ["\"outlet\"", "\"switch\""].contains($0.1) }
                    add(
                        .switch, object: path, name: name,
                        [("value_template", JSONText.quoted("{{ 'ON' if \(isTrue) else 'OFF' }}"))] + topic + switchHints)
                    continue
                case (_, let options?):
                    let list = options.map { JSONText.quoted(Self.text($0)) }.joined(separator: ",")
                    add(
                        .select, object: path, name: name,
                        [("value_template", JSONText.quoted("{{ \(reference) }}"))] + topic + [("options", "[\(list)]")])
                    continue
                case (.number, nil):
                    let bounds = Self.bounds(field)
                    // Home Assistant refuses a step below 0.001.
                    let step = Swift.max(field.decimals.map { Double("1e-\($0)") ?? 1 } ?? 0.1, 0.001)
                    add(
                        .number, object: path, name: name,
                        [("value_template", JSONText.quoted("{{ \(reference) }}"))] + topic + hints
                            + [("min", JSONText.number(bounds.min)), ("max", JSONText.number(bounds.max)), ("step", JSONText.number(step))])
                    continue
                default:
                    break
                }
            }
            switch recipe.valueKind {
            case .timestamp:
                continue
            case .bool:
                add(
                    .binarySensor, object: path.joined(separator: "_"), name: name,
                    [("value_template", JSONText.quoted("{{ 'ON' if \(isTrue) else 'OFF' }}"))] + hints)
            case .number:
                let stateClass = field.entity.stateClass ?? (recipe is CounterRecipe ? "total_increasing" : "measurement")
                if field.entity.unit == nil, (recipe as? LocationRecipe)?.coordinate == .heading {
                    hints.insert(("unit_of_measurement", JSONText.quoted("°")), at: 0)
                }
                add(
                    .sensor, object: path.joined(separator: "_"), name: name,
                    [("value_template", JSONText.quoted("{{ \(reference) }}"))] + hints + [("state_class", JSONText.quoted(stateClass))])
            case .text:
                add(
                    .sensor, object: path.joined(separator: "_"), name: name,
                    [("value_template", JSONText.quoted("{{ \(reference) }}"))] + hints)
            }
        }
        // Coordinates no one message carries together (per field, at the top level) are two
        // sensors instead of a tracker.
        if let latitude, let longitude, latitude.topic != longitude.topic {
            for (coordinate, name) in [(latitude, "Latitude"), (longitude, "Longitude")] {
                entityTopic = coordinate.topic
                add(
                    .sensor, object: name.lowercased(), name: name,
                    [("value_template", JSONText.quoted("{{ \(coordinate.reference) }}")), ("unit_of_measurement", JSONText.quoted("°"))])
            }
        }
        // One tracker of both coordinates, when one message carries them (per field, one group).
        if let latitude, let longitude, latitude.topic == longitude.topic {
            let attributes =
                "{{ {'latitude': \(latitude.reference), 'longitude': \(longitude.reference), 'gps_accuracy': \(Self.gpsAccuracy)} | tojson }}"
            // No state topic: Home Assistant places the tracker by its GPS attributes alone.
            entityTopic = nil
            add(
                .deviceTracker, object: "location", name: "Location",
                [
                    ("json_attributes_topic", JSONText.quoted(latitude.topic)), ("json_attributes_template", JSONText.quoted(attributes)),
                    ("source_type", JSONText.quoted("gps")),
                ])
        }
        self.configs = configs
    }

    /// What Home Assistant's number entity may be set to: the field's clamps, else its walk's
    /// bounds, else a span wide enough for any reading (Home Assistant's own default is 1…100).
    private static func bounds(_ field: FieldSpec) -> (min: Double, max: Double) {
        (field.commandBounds.min ?? -1e6, field.commandBounds.max ?? 1e6)
    }

    /// A choice as Home Assistant's select lists it: text.
    private static func text(_ value: SignalValue) -> String {
        switch value {
        case .string(let text): text
        case .bool(let on): String(on)
        case .integer(let number): String(number)
        case .number(let number): CommandValue.number(number).words
        case .utcTimestamp, .null: ""
        }
    }

    /// The accuracy, in metres, a tracker's position is given with: a phone's GPS outdoors. Home
    /// Assistant reads it to decide whether a position is inside a zone.
    static let gpsAccuracy = 10

    /// Every field made by a generator, with its path through the nested objects.
    private static func leaves(_ fields: [FieldSpec], under path: [String]) -> [([String], FieldSpec)] {
        fields.flatMap { field in
            field.fields.map { leaves($0, under: path + [field.name]) } ?? [(path + [field.name], field)]
        }
    }

    /// `.name` for a name Jinja reads as an attribute, else `['name']`.
    private static func member(_ name: String) -> String {
        let isIdentifier =
            name.first.map { $0.isLetter || $0 == "_" } == true
            && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
        if isIdentifier { return "." + name }
        let escaped = name.flatMap { $0 == "\\" || $0 == "'" ? ["\\", $0] : [$0] }
        return "['\(String(escaped))']"
    }

    /// A node or object id as Home Assistant takes them in a discovery topic: letters, digits,
    /// `_` and `-`; anything else becomes `_`.
    static func identifier(_ text: String) -> String {
        String(text.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") ? $0 : "_" })
    }

    /// `room_temperature` → `Room temperature`: the entity's name, which Home Assistant shows
    /// after the device's.
    private static func words(_ path: [String]) -> String {
        let text = String(path.joined(separator: " ").map { $0 == "_" ? " " : $0 })
        return text.prefix(1).uppercased() + text.dropFirst()
    }
}
