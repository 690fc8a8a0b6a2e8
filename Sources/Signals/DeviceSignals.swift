/// The signals of one device: its generators' running state, its random streams and its payload
/// encoder.
///
/// Not `Sendable`: a device is made on one thread and handed to its event loop with its
/// connection, and from then on only that loop calls it; it has no locks, on purpose, since
/// `encode` is on the publish hot path.
///
/// Every value is a pure function of the run's seed, the device id and the sample or publish
/// index: the sensor models are advanced through every sample due, whether or not a publish came
/// in between, so the bytes do not depend on when `encode` happened to be called.
package final class DeviceSignals {
    /// The most samples one `encode` advances the models through. After a longer gap the models
    /// skip to the last this many samples before `elapsed` instead of spending seconds catching
    /// up. The scenario loader refuses sample rates this many times the publish rate, so only a
    /// stall reaches it (a stopped process, a suspended machine). Models whose samples stand
    /// alone give the same values after a skip; those that carry state from sample to sample
    /// (`randomWalk`, `location`, an aggregating accelerometer) continue from where they were.
    ///
    /// Models whose samples do not depend on earlier ones (`SampledModel.dependsOnHistory`) are
    /// only advanced to the latest sample: the result is the same, for a fraction of the work.
    package static let maximumCatchUpSamples = 100_000

    /// Allowance for floating-point error when deciding whether sample k is due: elapsed 0.3 at
    /// 10 Hz must take sample 3 even though 0.3 / 0.1 is 2.9999999999999996.
    static let sampleTolerance = 1e-9

    package let deviceID: String
    let frame: PayloadFrame
    let fields: FieldList
    /// Set for the `template` style: it writes the payload instead of `frame` and `fields`.
    let template: TemplateEncoder?
    /// Set for the `raw` style: its `bytes` field, `rawSize` bytes of it, is the payload.
    let raw: BytesRecipe.Generator?
    let rawSize: Int
    /// Whether `raw` is set: the one test a JSON payload pays for it (unwrapping `raw`, which
    /// holds an array, retained and released it: 50 instructions a message, callgrind).
    package let isRaw: Bool
    /// Every payload's length (`payload.size`), reached by padding (`pad`); `nil` for none.
    let size: Int?
    /// Whether `size` is set: stored, as the publish path of another module asks it each
    /// message (computed, it was a call of a dozen instructions, twice a message: callgrind).
    package let keepsSize: Bool
    /// Payloads whose fields came out longer than `size`, sent as they were, since the device
    /// was made; `takeOversized` hands them to the loop's counters.
    var oversized = 0
    var oversizedTaken = 0
    private let faultTally = FaultTally()
    private var faultsTaken = FaultCounts()
    /// Whether any field declares faults; when none does, the counts stay zero.
    package let hasFaults: Bool
    /// Models advanced through every sample, in order.
    let historyModels: [any SampledModel]
    /// Models whose samples stand alone, advanced only to the latest sample due.
    let latestModels: [any SampledModel]
    /// A positive finite interval, or `nil` for one sample per publish.
    let sampleInterval: Double?

    /// Its metrics as a Sparkplug device (`useSparkplug`); nil for JSON and text payloads.
    var sparkplug: SparkplugDeviceMetrics?

    /// Every field made by a generator, by its dotted path through the groups: what a script
    /// reads and writes (`DeviceSignals+Script`).
    let leaves: [(path: String, field: FieldEncoder)]

    /// Each `integral` field's total, with the field it adds up.
    private let integrals: [(total: IntegralRecipe.Total, source: FieldEncoder)]

    /// Every field made by a generator, by its dotted path through the groups.
    static func leaves(_ list: FieldList, _ prefix: String = "") -> [(String, FieldEncoder)] {
        list.fields.flatMap { field in
            field.isGroup ? leaves(field.members, prefix + field.name + ".") : [(prefix + field.name, field)]
        }
    }

    /// Finds the field each `integral` adds up; one it cannot find (the loader refuses it) stays
    /// at its start.
    private static func linkIntegrals(
        _ fields: [(String, FieldEncoder)], _ byPath: [String: FieldEncoder]
    ) -> [(total: IntegralRecipe.Total, source: FieldEncoder)] {
        fields.compactMap { _, field in
            guard let total = field.generator as? IntegralRecipe.Total, let source = byPath[total.recipe.source] else { return nil }
            source.keepsLastNumber = true
            return (total, source)
        }
    }

    /// Gives each `setpoint` field the field whose setpoint it reports, and each formula the
    /// fields it reads.
    private static func linkReaders(_ fields: [(String, FieldEncoder)], _ byPath: [String: FieldEncoder]) {
        for (_, field) in fields {
            if let target = field.generator as? SetpointRecipe.Target {
                target.field = byPath[target.source]
            } else if let formula = field.generator as? FormulaMachine {
                formula.link(formula.program.fields.compactMap { byPath[$0] })
            }
        }
    }

    /// Whether each field is a message of its own (`PayloadStyle.perField`): `encode` then writes
    /// the bare values one after another, and `pieces` says where each is.
    package let isPerField: Bool
    /// After an `encode` in the per-field style: each field written, by its index among the
    /// payload's fields, and its bytes in the buffer. A field that dropped out has none.
    package private(set) var pieces: [(field: Int, bytes: Range<Int>)] = []
    /// The names of the payload's fields, in order: the last level of each per-field topic.
    package let fieldNames: [String]
    /// Whether each field's bare value is text, to be quoted in a JSON object of the pieces.
    private let fieldIsText: [Bool]

    /// The pieces of the last payload as one JSON object, `{"name":value,…}`: a request's
    /// reply in the per-field style.
    package func piecesAsObject(_ bytes: [UInt8]) -> [UInt8] {
        var buffer = PayloadBuffer()
        buffer.append(UInt8(ascii: "{"))
        for (number, (field, range)) in pieces.enumerated() {
            if number > 0 { buffer.append(UInt8(ascii: ",")) }
            JSONWriter.writeString(fieldNames[field], into: &buffer)
            buffer.append(UInt8(ascii: ":"))
            if fieldIsText[field] {
                JSONWriter.writeString(String(decoding: bytes[range], as: UTF8.self), into: &buffer)
            } else {
                buffer.append(contentsOf: Array(bytes[range]))
            }
        }
        buffer.append(UInt8(ascii: "}"))
        return buffer.bytes
    }
    /// The fields an `onChange` group watches (`watch`).
    private var watched: [FieldEncoder] = []

    /// Watches the top-level fields called `names`: `hasChanged` compares their values with those
    /// last sent (`markSent`).
    package func watch(_ names: [String]) {
        watched = fields.fields.filter { names.contains($0.name) }
        for field in watched { field.isWatched = true }
    }

    /// Whether a watched field's value in the payload just made differs from the last sent one.
    package var hasChanged: Bool { watched.contains { $0.written != $0.sent } }

    /// The payload just made was sent: its watched values are the ones to compare with next.
    package func markSent() {
        for field in watched { field.sent = field.written }
    }

    /// The next sample index the models have not taken yet.
    private var nextSample = 0
    private var latestSample = SampleInstant(index: 0, time: 0)
    private var publishIndex = 0

    /// - Parameters:
    ///   - index: the device's 1-based index in its group.
    ///   - seed: the run's seed; with the device id it fixes every value the device produces.
    ///   - sampleInterval: seconds between sensor samples; `nil` samples once per publish.
    package init(payload: PayloadSpec, deviceID: String, index: Int, seed: UInt64, sampleInterval: Double?) {
        let interval = sampleInterval.flatMap { $0 > 0 && $0.isFinite ? $0 : nil }
        let context = GeneratorContext(deviceID: deviceID, index: index, runSeed: seed, sampleInterval: interval)
        var fields: [FieldEncoder] = []
        fields.reserveCapacity(payload.fields.count)
        for spec in payload.fields {
            context.fieldName = spec.name
            fields.append(FieldEncoder(spec: spec, context: context, tally: faultTally))
        }
        self.deviceID = deviceID
        self.frame = PayloadFrame(style: payload.style)
        self.fields = FieldList(fields)
        if payload.style == .template, let template = payload.template {
            self.template = TemplateEncoder(
                template: template, fields: fields, names: payload.fields.map(\.name),
                deviceID: deviceID, index: index)
        } else {
            self.template = nil
        }
        if payload.style == .raw, let field = fields.first, let generator = field.generator as? BytesRecipe.Generator,
            case .generator(let recipe as BytesRecipe) = payload.fields.first?.content
        {
            raw = generator
            isRaw = true
            rawSize = recipe.size ?? payload.size ?? 0
            size = nil
            keepsSize = false
        } else {
            raw = nil
            isRaw = false
            rawSize = 0
            size = payload.size
            keepsSize = payload.size != nil
        }
        hasFaults = Self.declaresFaults(payload.fields)
        isPerField = payload.style == .perField
        fieldNames = payload.fields.map(\.name)
        fieldIsText = payload.fields.map { [.text, .timestamp].contains($0.generator?.valueKind) }
        let leaves = Self.leaves(FieldList(fields))
        self.leaves = leaves.map { (path: $0.0, field: $0.1) }
        let byPath = Dictionary(leaves, uniquingKeysWith: { first, _ in first })
        integrals = Self.linkIntegrals(leaves, byPath)
        Self.linkReaders(leaves, byPath)
        self.historyModels = context.models.filter { $0.dependsOnHistory }
        self.latestModels = context.models.filter { !$0.dependsOnHistory }
        self.sampleInterval = interval
    }

    /// Appends the payload of a publish made `elapsed` seconds after the device's clock started
    /// (its connection's CONNACK), at `wallClock` seconds since the Unix epoch, to `buffer`.
    /// The sensor models are advanced through every sample due by `elapsed` first.
    package func encode(elapsed: Double, wallClock: Double, into buffer: inout PayloadBuffer) {
        write(at: nextInstant(elapsed: elapsed, wallClock: wallClock), into: &buffer)
    }

    /// Appends the payload of the publish at `instant` (`nextInstant`) to `buffer`.
    @inline(__always)
    package func write(at instant: PublishInstant, into buffer: inout PayloadBuffer) {
        let elapsed = instant.elapsed
        let start = buffer.count
        if let template {
            template.encode(at: instant, into: &buffer)
            if let size { pad(from: start, to: size, before: 0, into: &buffer) }
            noteIntegrals(elapsed)
            return
        }
        if isRaw {
            writeRaw(at: instant, into: &buffer)
            return
        }
        if isPerField {
            pieces.removeAll(keepingCapacity: true)
            for (index, field) in fields.fields.enumerated() {
                let start = buffer.count
                if field.writeAlone(at: instant, into: &buffer) { pieces.append((index, start..<buffer.count)) }
            }
            noteIntegrals(elapsed)
            return
        }
        buffer.append(contentsOf: frame.opening)
        fields.writeMembers(at: instant, into: &buffer)
        if let size { pad(from: start, to: size, before: frame.closing.count, into: &buffer) }
        buffer.append(contentsOf: frame.closing)
        noteIntegrals(elapsed)
    }

    /// The instant of the next publish, the models advanced to it: one per payload, whatever its
    /// encoding.
    @inline(__always)
    package func nextInstant(elapsed: Double, wallClock: Double) -> PublishInstant {
        let instant = PublishInstant(
            index: publishIndex, sample: takeSamples(upTo: elapsed),
            elapsed: elapsed, wallClock: wallClock)
        publishIndex += 1
        return instant
    }

    /// After a payload, whatever the order of its fields: each total grows by what its source
    /// published now until the next.
    @inline(__always)
    func noteIntegrals(_ elapsed: Double) {
        guard !integrals.isEmpty else { return }
        for (total, source) in integrals { total.published(source.lastNumber, at: elapsed) }
    }

    /// A command's values for the fields at their paths (a name; `location.lat` inside a group),
    /// taken from the next payload on: all of them, or, when one does not fit its field, none.
    package func take(_ values: [(field: String, value: CommandValue)]) throws(CommandRejection) {
        for (path, value) in values { try field(at: path).take(value, checkOnly: true) }
        for (path, value) in values { try field(at: path).take(value) }
    }

    private func field(at path: String) throws(CommandRejection) -> FieldEncoder {
        var list = fields
        var field: FieldEncoder?
        for name in path.split(separator: ".", omittingEmptySubsequences: false) {
            guard let found = list.fields.first(where: { $0.name == name }) else {
                field = nil
                break
            }
            field = found
            list = found.members
        }
        guard let field, !field.isGroup else {
            throw CommandRejection("no field '\(path)'", kind: CommandRejection.noSuchField)
        }
        return field
    }

    /// The faults that fired in every payload encoded so far.
    package var faultCounts: FaultCounts {
        faultTally.counts
    }

    /// The faults that fired since the last call (or since the device was made): what the
    /// simulator adds to its loop's counters after each encode.
    package func takeFaultCounts() -> FaultCounts {
        let counts = faultTally.counts
        let fired = FaultCounts(
            spike: counts.spike - faultsTaken.spike, stuck: counts.stuck - faultsTaken.stuck,
            dropout: counts.dropout - faultsTaken.dropout, drift: counts.drift - faultsTaken.drift)
        faultsTaken = counts
        return fired
    }

    private static func declaresFaults(_ fields: [FieldSpec]) -> Bool {
        fields.contains { field in
            !field.faults.isEmpty || field.fields.map(declaresFaults) == true
        }
    }

    private func advance(_ models: [any SampledModel], to sample: SampleInstant) {
        models.withUnsafeBufferPointer { models in
            for index in models.indices {
                models[index].advance(to: sample)
            }
        }
    }

    /// Advances the models through the samples due by `elapsed` and returns the latest one.
    private func takeSamples(upTo elapsed: Double) -> SampleInstant {
        guard let interval = sampleInterval else {
            let sample = SampleInstant(index: publishIndex, time: elapsed)
            advance(historyModels, to: sample)
            advance(latestModels, to: sample)
            latestSample = sample
            return sample
        }
        let clamped = elapsed.isFinite ? Swift.max(elapsed, 0) : 0
        // Capped far below Int.max so that index arithmetic can never overflow.
        let due = Int(Swift.min((clamped / interval + Self.sampleTolerance).rounded(.down), 1e15))
        guard due >= nextSample else { return latestSample }
        let first = Swift.max(nextSample, due - Self.maximumCatchUpSamples + 1)
        if !historyModels.isEmpty {
            for index in first...due {
                advance(historyModels, to: SampleInstant(index: index, time: Double(index) * interval))
            }
        }
        nextSample = due + 1
        latestSample = SampleInstant(index: due, time: Double(due) * interval)
        advance(latestModels, to: latestSample)
        return latestSample
    }
}
