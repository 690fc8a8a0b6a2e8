/// One device's formula field: its program run over stacks made with it, so that a publish
/// allocates nothing. The fields it reads are linked once every field of the device is made
/// (`DeviceSignals`); each gives the value it shows in the same publish.
final class FormulaMachine: FieldGenerator {
    let program: FormulaProgram
    private let deviceID: SignalValue
    private let index: Double
    /// One stream per call of `random` or `gaussian`, derived from the field's seed: a call's
    /// draws do not depend on the others, nor on which branch of a `?:` ran before it.
    private let seeds: [Seed]
    /// The fields in the program's slots, once linked; unlinked, the formula gives `null`.
    /// Unretained, as `FieldList` holds them: the device's fields own them, this one among them.
    private(set) var sources: [Unmanaged<FieldEncoder>] = []
    /// Its two stacks, as deep as the program needs, made with it.
    private let numbers: UnsafeMutablePointer<Double>
    private let texts: UnsafeMutablePointer<SignalValue>

    init(program: FormulaProgram, context: GeneratorContext) {
        self.program = program
        deviceID = .string(context.deviceID)
        index = Double(context.index)
        let seed = context.fieldSeed.derive("formula")
        seeds = (0..<program.randomSites).map { seed.derive($0) }
        numbers = .allocate(capacity: program.numberDepth)
        numbers.initialize(repeating: 0, count: program.numberDepth)
        texts = .allocate(capacity: program.textDepth)
        texts.initialize(repeating: .null, count: program.textDepth)
    }

    deinit {
        numbers.deallocate()
        texts.deinitialize(count: program.textDepth)
        texts.deallocate()
    }

    /// Gives the machine the fields it reads, in slot order, and has them keep the value of
    /// each publish for it.
    func link(_ fields: [FieldEncoder]) {
        guard fields.count == program.fields.count else { return }
        for field in fields { field.isRead = true }
        sources = fields.map { Unmanaged.passUnretained($0) }
    }

    func value(at instant: PublishInstant) -> SignalValue {
        guard sources.count == program.fields.count else { return .null }
        var top = 0
        var textTop = 0
        var next = 0
        return program.instructions.withUnsafeBufferPointer { code in
            while next < code.count {
                switch code[next] {
                case .number(let value):
                    numbers[top] = value
                    top += 1
                case .text(let constant):
                    texts[textTop] = program.texts[constant]
                    textTop += 1
                case .readNumber(let slot):
                    switch sources[slot]._withUnsafeGuaranteedRef({ $0.publishedValue(at: instant) }) {
                    case .number(let value): numbers[top] = value
                    case .integer(let value): numbers[top] = Double(value)
                    case .bool(let value): numbers[top] = value ? 1 : 0
                    default: return .null
                    }
                    top += 1
                case .readText(let slot):
                    let value = sources[slot]._withUnsafeGuaranteedRef { $0.publishedValue(at: instant) }
                    if value == .null { return .null }
                    texts[textTop] = value
                    textTop += 1
                case .time:
                    numbers[top] = instant.elapsed
                    top += 1
                case .index:
                    numbers[top] = index
                    top += 1
                case .id:
                    texts[textTop] = deviceID
                    textTop += 1
                case .negate:
                    numbers[top - 1] = -numbers[top - 1]
                case .not:
                    numbers[top - 1] = numbers[top - 1] == 0 ? 1 : 0
                case .add: top = binary(top) { $0 + $1 }
                case .subtract: top = binary(top) { $0 - $1 }
                case .multiply: top = binary(top) { $0 * $1 }
                case .divide: top = binary(top) { $0 / $1 }
                case .remainder: top = binary(top) { Math.remainder($0, $1) }
                case .power: top = binary(top) { Math.power($0, $1) }
                case .less: top = binary(top) { $0 < $1 ? 1 : 0 }
                case .lessOrEqual: top = binary(top) { $0 <= $1 ? 1 : 0 }
                case .greater: top = binary(top) { $0 > $1 ? 1 : 0 }
                case .greaterOrEqual: top = binary(top) { $0 >= $1 ? 1 : 0 }
                case .equal: top = binary(top) { $0 == $1 ? 1 : 0 }
                case .notEqual: top = binary(top) { $0 != $1 ? 1 : 0 }
                case .textEqual, .textNotEqual:
                    textTop -= 2
                    let same = texts[textTop] == texts[textTop + 1]
                    numbers[top] = same == (code[next].isTextEqual) ? 1 : 0
                    top += 1
                case .call(let function, let arguments):
                    top -= arguments
                    numbers[top] = function.apply(numbers + top, arguments: arguments)
                    top += 1
                case .random(let site):
                    var random = seeds[site].derive(instant.sample.index).generator()
                    numbers[top] = random.nextUnit()
                    top += 1
                case .gaussian(let site):
                    // The sample's own draw, as the `gaussian` generator's: repeated publishes of
                    // one sample repeat it.
                    var random = seeds[site].derive(instant.sample.index).generator()
                    top -= 1
                    numbers[top - 1] += numbers[top] * random.nextGaussian()
                case .jumpUnless(let target):
                    top -= 1
                    if numbers[top] == 0 {
                        next = target
                        continue
                    }
                case .jump(let target):
                    next = target
                    continue
                }
                next += 1
            }
            switch program.kind {
            case .bool: return .bool(numbers[0] != 0)
            case .text: return texts[0]
            case .number, .timestamp: return .number(numbers[0])
            }
        }
    }

    /// The two numbers on top replaced by `operation` of them; the new top.
    @inline(__always)
    private func binary(_ top: Int, _ operation: (Double, Double) -> Double) -> Int {
        numbers[top - 2] = operation(numbers[top - 2], numbers[top - 1])
        return top - 1
    }
}

extension FormulaProgram.Instruction {
    var isTextEqual: Bool {
        if case .textEqual = self { return true }
        return false
    }
}
