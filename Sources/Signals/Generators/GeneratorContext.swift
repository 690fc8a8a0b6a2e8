/// What a recipe needs to make one device's generator for one field: the device's identity and
/// seeds, its sample rate, and the models its fields share.
///
/// Lives only while `DeviceSignals` is being built, on one thread.
package final class GeneratorContext {
    package let deviceID: String
    /// The device's 1-based index in its group.
    package let index: Int
    /// Derived from the run's seed and the device id: every value of the device descends from it.
    package let deviceSeed: Seed
    /// Seconds between sensor samples; `nil` when the device samples once per publish.
    package let sampleInterval: Double?
    /// The field being made.
    package internal(set) var fieldName: String = ""

    /// The models in the order they were first asked for, which is the order they advance in.
    package private(set) var models: [any SampledModel] = []
    private var modelsByKey: [String: any SampledModel] = [:]

    package init(deviceID: String, index: Int, runSeed: UInt64, sampleInterval: Double?) {
        self.deviceID = deviceID
        self.index = index
        self.deviceSeed = Seed(runSeed).derive(deviceID)
        self.sampleInterval = sampleInterval
    }

    /// The field's own seed: named after the field, so adding or reordering fields does not
    /// change the values of the others.
    package var fieldSeed: Seed {
        deviceSeed.derive("field/" + fieldName)
    }

    /// The device's model for `key`, made on first request with a seed derived from `key`. Fields
    /// asking with the same key read the same model: that is how the axes of one accelerometer
    /// stay correlated.
    package func sharedModel<Model: SharedModel>(key: String, make: (Seed) -> Model) -> Model {
        let fullKey = "\(Model.seedLabel)/\(key)"
        if let model = modelsByKey[fullKey] as? Model {
            return model
        }
        let model = make(deviceSeed.derive("model/" + fullKey))
        modelsByKey[fullKey] = model
        models.append(model)
        return model
    }

    /// Adds a model only this field uses, so that it advances with the others.
    package func register(_ model: any SampledModel) {
        models.append(model)
    }
}
