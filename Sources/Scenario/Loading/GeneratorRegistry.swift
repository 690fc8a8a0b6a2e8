import Signals

/// How the loader finds field generators. In use it is always `standard`, the `Generators`
/// registry; tests hand in their own generators so field loading can be tested on its own.
struct GeneratorRegistry {
    var keys: [String]
    /// The recipe for a key, or `nil` when no generator has that key.
    var recipe: (String, any ParameterSource) throws(ParameterError) -> (any GeneratorRecipe)?

    static var standard: GeneratorRegistry {
        GeneratorRegistry(keys: Generators.keys) { key, parameters throws(ParameterError) in
            try Generators.recipe(named: key, parameters: parameters)
        }
    }
}
