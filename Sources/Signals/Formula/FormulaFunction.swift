/// The functions a formula may call. Every argument is a number, and so is every result.
package enum FormulaFunction: String, Sendable, CaseIterable {
    case sin, cos, tan, asin, acos, atan, atan2, exp, log, log10, sqrt, abs, floor, ceil, round, min, max, clamp, pow
    /// Uniform in [0, 1), from the field's seeded stream.
    case random
    /// `gaussian(mean, sd)`, from the field's seeded stream.
    case gaussian

    /// How many arguments it takes; `Int.max` for no upper bound.
    var arity: ClosedRange<Int> {
        switch self {
        case .random: 0...0
        case .atan2, .pow, .gaussian: 2...2
        case .round: 1...2
        case .min, .max: 2...Int.max
        case .clamp: 3...3
        default: 1...1
        }
    }

    /// How a message names its arguments.
    var usage: String {
        switch self {
        case .random: "random()"
        case .atan2: "atan2(y, x)"
        case .pow: "pow(x, y)"
        case .gaussian: "gaussian(mean, sd)"
        case .round: "round(x) or round(x, decimals)"
        case .min, .max: "\(rawValue)(a, b, …)"
        case .clamp: "clamp(x, lo, hi)"
        default: "\(rawValue)(x)"
        }
    }

    /// The function of the `arguments` numbers from `stack` on, the last argument last.
    /// `random` and `gaussian` are the machine's, which keeps their seeds.
    @inline(__always)
    func apply(_ stack: UnsafeMutablePointer<Double>, arguments: Int) -> Double {
        let x = stack[0]
        switch self {
        case .sin: return Math.sine(x)
        case .cos: return Math.cosine(x)
        case .tan: return Math.tangent(x)
        case .asin: return Math.arcsine(x)
        case .acos: return Math.arccosine(x)
        case .atan: return Math.arctangent(x)
        case .atan2: return Math.arctangent2(x, stack[1])
        case .exp: return Math.exponential(x)
        case .log: return Math.ln(x)
        case .log10: return Math.decimalLogarithm(x)
        case .sqrt: return x.squareRoot()
        case .abs: return Swift.abs(x)
        case .floor: return x.rounded(.down)
        case .ceil: return x.rounded(.up)
        case .round:
            guard arguments == 2 else { return x.rounded(.toNearestOrAwayFromZero) }
            let scale = Math.power(10, stack[1].rounded(.toNearestOrAwayFromZero))
            return (x * scale).rounded(.toNearestOrAwayFromZero) / scale
        case .min: return Swift.min(x, stack[1])
        case .max: return Swift.max(x, stack[1])
        case .clamp: return Swift.min(Swift.max(x, stack[1]), stack[2])
        case .pow: return Math.power(x, stack[1])
        case .random, .gaussian: return .nan
        }
    }
}
