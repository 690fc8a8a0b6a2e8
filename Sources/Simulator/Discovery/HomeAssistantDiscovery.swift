import Report
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
///   device's with a `command_template` that writes `{"field": value}`;
/// - a temperature with a setpoint (`command: { setpoint: … }`) is a thermostat: a `climate`
///   whose current temperature is the field, whose target is read from the field that reports
///   the setpoint (`setpoint: { of: … }`; without one Home Assistant keeps what it set), and whose
///   mode is a field set by command whose values are Home Assistant's modes (else always `heat`);
///   the temperature stays a sensor as well, for Home Assistant's statistics.
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
        case climate
    }

    /// The modes a `climate` may be in, as Home Assistant's MQTT climate takes them.
    static let hvacModes = ["auto", "off", "cool", "heat", "dry", "fan_only"]

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
        // In the per-field style a field is alone on its topic: a bare value, or the object of
        // its group.
        func topicOf(_ path: [String]) -> String { perField ? topic + "/" + path[0] : topic }
        func referenceTo(_ path: [String]) -> String {
            perField
                ? (path.count == 1 ? "value" : "value_json" + path.dropFirst().map(Self.member).joined())
                : value + path.map(Self.member).joined()
        }
        /// Where a control sends a value for the field at `path`: its own topic, or the device's
        /// with a template that writes `{"field": value}`; `prefix` names the climate's parts.
        func commandTopic(_ path: [String], kind: ValueKind, prefix: String = "") -> [(String, String)] {
            guard let commands else { return [] }
            let path = path.joined(separator: ".")
            if let level = commands.fieldLevel {
                var levels = commands.filter.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
                levels[level] = path
                return [(prefix + "command_topic", JSONText.quoted(levels.joined(separator: "/")))]
            }
            let quotes = kind == .number ? "" : "\""
            return [
                (prefix + "command_topic", JSONText.quoted(commands.filter)),
                (prefix + "command_template", JSONText.quoted("{\(JSONText.quoted(path)): \(quotes){{ value }}\(quotes)}")),
            ]
        }
        let leaves = Self.leaves(payload.fields, under: [])
        let controls = commands.map { $0.requestLevel == nil } ?? false
        // Thermostats, and the fields that are theirs: each reported setpoint, and one mode.
        let thermostats = controls ? Set(leaves.filter { Self.isThermostat($0.1) }.map { $0.0.joined(separator: ".") }) : []
        let targets = Dictionary(
            leaves.compactMap { path, field in
                (field.generator as? SetpointRecipe).flatMap { thermostats.contains($0.source) ? ($0.source, path) : nil }
            },
            uniquingKeysWith: { first, _ in first })
        let mode = thermostats.isEmpty ? nil : leaves.lazy.compactMap { path, field in Self.hvacModes(of: field).map { (path, $0) } }.first
        var latitude: (reference: String, topic: String)?, longitude: (reference: String, topic: String)?
        for (path, field) in leaves {
            guard let recipe = field.generator else { continue }
            let dotted = path.joined(separator: ".")
            if targets.values.contains(path) || mode?.0 == path { continue }
            let stateTopic = topicOf(path)
            let reference = referenceTo(path)
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
            if thermostats.contains(dotted) {
                // Read from three places, a climate has no one state topic.
                entityTopic = nil
                var parts = [
                    ("current_temperature_topic", JSONText.quoted(stateTopic)),
                    ("current_temperature_template", JSONText.quoted("{{ \(reference) }}")),
                ]
                parts += commandTopic(path, kind: .number, prefix: "temperature_")
                if let target = targets[dotted] {
                    parts += [
                        ("temperature_state_topic", JSONText.quoted(topicOf(target))),
                        ("temperature_state_template", JSONText.quoted("{{ \(referenceTo(target)) }}")),
                    ]
                }
                if let (path, modes) = mode {
                    parts += [
                        ("mode_state_topic", JSONText.quoted(topicOf(path))),
                        ("mode_state_template", JSONText.quoted("{{ \(referenceTo(path)) }}")),
                    ]
                    parts += commandTopic(path, kind: .text, prefix: "mode_")
                    parts += [("modes", "[" + modes.map(JSONText.quoted).joined(separator: ",") + "]")]
                } else {
                    // A thermostat that only heats: its mode is said with every state.
                    parts += [
                        ("mode_state_topic", JSONText.quoted(stateTopic)), ("mode_state_template", JSONText.quoted("heat")),
                        ("modes", "[\"heat\"]"),
                    ]
                }
                parts += Self.temperatureSettings(field)
                add(.climate, object: path.joined(separator: "_") + "_thermostat", name: "Thermostat", parts)
                entityTopic = stateTopic
            } else if field.command != nil, commands != nil, controls {
                let topic = commandTopic(path, kind: recipe.valueKind)
                switch (recipe.valueKind, recipe.options) {
                case (.bool, _):
                    // A switch takes only the device classes outlet and switch.
                    let switchHints = hints.filter { $0.0 != "device_class" || ["\"outlet\"", "\"switch\""].contains($0.1) }
                    add(
                        .switch, object: dotted, name: name,
                        [("value_template", JSONText.quoted("{{ 'ON' if \(isTrue) else 'OFF' }}"))] + topic + switchHints)
                    continue
                case (_, let options?):
                    let list = options.map { JSONText.quoted(Self.text($0)) }.joined(separator: ",")
                    add(
                        .select, object: dotted, name: name,
                        [("value_template", JSONText.quoted("{{ \(reference) }}"))] + topic + [("options", "[\(list)]")])
                    continue
                case (.number, nil):
                    let bounds = Self.bounds(field)
                    // Home Assistant refuses a step below 0.001.
                    let step = Swift.max(field.decimals.map { Double("1e-\($0)") ?? 1 } ?? 0.1, 0.001)
                    add(
                        .number, object: dotted, name: name,
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

    /// Whether `field` is a thermostat's temperature: a number with a setpoint, in degrees.
    private static func isThermostat(_ field: FieldSpec) -> Bool {
        guard case .setpoint = field.command, field.generator?.valueKind == .number else { return false }
        return field.entity.deviceClass == "temperature" || ["°C", "°F", "C", "F"].contains(field.entity.unit ?? "")
    }

    /// The climate modes `field` takes, when a command sets it and every value it has is one:
    /// its choices, or a constant's value with `off`; `nil` for any other field.
    private static func hvacModes(of field: FieldSpec) -> [String]? {
        guard field.command == .set, let recipe = field.generator else { return nil }
        let values = recipe.options ?? (recipe as? ConstantRecipe).map { [$0.value, .string("off")] } ?? []
        var modes: [String] = []
        for value in values {
            guard case .string(let mode) = value, hvacModes.contains(mode) else { return nil }
            if !modes.contains(mode) { modes.append(mode) }
        }
        return modes.isEmpty ? nil : modes
    }

    /// A thermostat's range, step and unit, from its field: its bounds (Home Assistant's own
    /// range, 7 to 35 °C, without), a step of its decimals, no finer than a tenth.
    private static func temperatureSettings(_ field: FieldSpec) -> [(String, String)] {
        var settings: [(String, String)] = []
        if let min = field.commandBounds.min { settings.append(("min_temp", JSONText.number(min))) }
        if let max = field.commandBounds.max { settings.append(("max_temp", JSONText.number(max))) }
        let tenths = (field.decimals ?? 1) > 0
        settings += [("temp_step", tenths ? "0.1" : "1"), ("precision", tenths ? "0.1" : "1.0")]
        switch field.entity.unit {
        case "°C", "C": settings.append(("temperature_unit", "\"C\""))
        case "°F", "F": settings.append(("temperature_unit", "\"F\""))
        default: break
        }
        return settings
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
