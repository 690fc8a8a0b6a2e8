/// Checks a formula's syntax (names, functions, the kind of every value) and compiles it into a
/// `FormulaProgram`. Each problem is a `FormulaError` at the part it is about.
struct FormulaCompiler {
    /// What a name that is no function stands for, as the payload's fields say.
    enum Name {
        /// A field whose values are of this kind.
        case field(ValueKind)
        /// A group of fields, with its members' paths.
        case group([String])
        /// A field a formula cannot read, and why.
        case unreadable(String)
        /// A formula that could not be checked, its problem said where it is.
        case unchecked
    }

    /// The device's own values, by the name a formula reads them with.
    static let deviceNames = ["t", "time", "index", "id", "pi"]

    /// What `name` is in the payload; `nil` for no field. Fields come before the device's names:
    /// a field called `index` is read as that field.
    let lookup: (String) -> Name?
    /// A hint for a misspelt name, function or field (`; did you mean 'temp_c'?`), or what is
    /// expected instead.
    let unknown: (_ word: String, _ function: Bool) -> String

    private var instructions: [FormulaProgram.Instruction] = []
    private var constants: [SignalValue] = []
    private var fields: [String] = []
    /// The values each stack holds at this point of the code, and the most so far.
    private var numbers = 0
    private var texts = 0
    private var numberDepth = 0
    private var textDepth = 0
    private var randomSites = 0

    init(lookup: @escaping (String) -> Name?, unknown: @escaping (String, Bool) -> String) {
        self.lookup = lookup
        self.unknown = unknown
    }

    mutating func compile(_ syntax: FormulaSyntax) throws(FormulaError) -> FormulaProgram {
        let kind = try emit(syntax)
        return FormulaProgram(
            instructions: instructions, texts: constants, fields: fields, kind: kind, numberDepth: Swift.max(numberDepth, 1),
            textDepth: Swift.max(textDepth, 1), randomSites: randomSites)
    }

    private static func words(_ kind: ValueKind) -> String {
        switch kind {
        case .number, .timestamp: "a number"
        case .bool: "true or false"
        case .text: "text"
        }
    }

    /// What `syntax` is, for a message: `'mode'` when it is a name.
    private static func naming(_ syntax: FormulaSyntax) -> String {
        if case .name(let name) = syntax.kind { return " ('\(name)')" }
        return ""
    }

    private mutating func push(_ instruction: FormulaProgram.Instruction, _ kind: ValueKind, popping popped: Int = 0) {
        instructions.append(instruction)
        numbers -= popped
        if kind == .text {
            texts += 1
            textDepth = Swift.max(textDepth, texts)
        } else {
            numbers += 1
            numberDepth = Swift.max(numberDepth, numbers)
        }
    }

    /// Emits `syntax`, which must be of `kind`; `what` says what takes it (`'+' takes numbers`).
    private mutating func emit(_ syntax: FormulaSyntax, as kind: ValueKind, _ what: String) throws(FormulaError) {
        let found = try emit(syntax)
        guard found == kind else {
            throw FormulaError(offset: syntax.offset, "\(what), not \(Self.words(found))\(Self.naming(syntax))")
        }
    }

    /// Emits the code that leaves `syntax`'s value on its stack, and returns its kind.
    private mutating func emit(_ syntax: FormulaSyntax) throws(FormulaError) -> ValueKind {
        switch syntax.kind {
        case .number(let value):
            push(.number(value), .number)
            return .number
        case .bool(let value):
            push(.number(value ? 1 : 0), .bool)
            return .bool
        case .text(let text):
            push(.text(index: constants.count), .text)
            constants.append(.string(text))
            return .text
        case .name(let name):
            return try emitName(name, at: syntax.offset)
        case .unary(let symbol, let operand):
            if symbol == "-" {
                try emit(operand, as: .number, "'-' takes a number")
                push(.negate, .number, popping: 1)
                return .number
            }
            try emit(operand, as: .bool, "'!' takes true or false (a comparison such as power > 2)")
            push(.not, .bool, popping: 1)
            return .bool
        case .binary(let symbol, let left, let right):
            return try emitBinary(symbol, left, right, at: syntax.offset)
        case .conditional(let condition, let then, let otherwise):
            try emit(condition, as: .bool, "the condition before '?' is true or false (a comparison such as power > 2)")
            return try emitBranches(
                then: { compiler throws(FormulaError) in try compiler.emit(then) },
                otherwise: { compiler throws(FormulaError) in try compiler.emit(otherwise) },
                at: otherwise.offset)
        case .call(let name, let arguments):
            return try emitCall(name, arguments, at: syntax.offset)
        }
    }

    private mutating func emitName(_ name: String, at offset: Int) throws(FormulaError) -> ValueKind {
        switch lookup(name) {
        case .field(let kind)?:
            let slot = fields.firstIndex(of: name) ?? fields.count
            if slot == fields.count { fields.append(name) }
            push(kind == .text ? .readText(slot: slot) : .readNumber(slot: slot), kind)
            return kind
        case .group(let members)?:
            let some = members.prefix(3).joined(separator: ", ") + (members.count > 3 ? ", …" : "")
            throw FormulaError(offset: offset, "'\(name)' is a group of fields: name one of its members (\(some))")
        case .unreadable(let why)?:
            throw FormulaError(offset: offset, why)
        case .unchecked?:
            throw FormulaError.consequence(at: offset)
        case nil:
            break
        }
        switch name {
        case "t", "time": push(.time, .number)
        case "index": push(.index, .number)
        case "id":
            push(.id, .text)
            return .text
        case "pi": push(.number(Double.pi), .number)
        default:
            if let function = FormulaFunction(rawValue: name) {
                throw FormulaError(offset: offset, "'\(name)' is a function: call it, \(function.usage)")
            }
            throw FormulaError(offset: offset, "unknown name '\(name)' in the formula" + unknown(name, false))
        }
        return .number
    }

    private mutating func emitBinary(
        _ symbol: String, _ left: FormulaSyntax, _ right: FormulaSyntax, at offset: Int
    ) throws(FormulaError) -> ValueKind {
        let arithmetic: [String: FormulaProgram.Instruction] = [
            "+": .add, "-": .subtract, "*": .multiply, "/": .divide, "%": .remainder, "^": .power,
        ]
        let comparisons: [String: FormulaProgram.Instruction] = [
            "<": .less, "<=": .lessOrEqual, ">": .greater, ">=": .greaterOrEqual,
        ]
        if let instruction = arithmetic[symbol] {
            let takes = symbol == "+" ? "'+' adds numbers (a formula does not join texts)" : "'\(symbol)' takes numbers"
            try emit(left, as: .number, takes)
            try emit(right, as: .number, takes)
            push(instruction, .number, popping: 2)
            return .number
        }
        if let instruction = comparisons[symbol] {
            try emit(left, as: .number, "'\(symbol)' compares numbers")
            try emit(right, as: .number, "'\(symbol)' compares numbers")
            push(instruction, .bool, popping: 2)
            return .bool
        }
        if symbol == "==" || symbol == "!=" {
            let kind = try emit(left)
            let other = try emit(right)
            guard kind == other else {
                throw FormulaError(
                    offset: offset, "'\(symbol)' compares values of one kind: \(Self.words(kind)) with \(Self.words(other))")
            }
            if kind == .text {
                texts -= 2
                push(symbol == "==" ? .textEqual : .textNotEqual, .bool)
            } else {
                push(symbol == "==" ? .equal : .notEqual, .bool, popping: 2)
            }
            return .bool
        }
        // `a && b` is `a ? b : false`, and `a || b` is `a ? true : b`: the right side is only
        // worked out when it matters.
        let takes = "'\(symbol)' takes true or false (a comparison such as power > 2)"
        try emit(left, as: .bool, takes)
        let and = symbol == "&&"
        return try emitBranches(
            then: { compiler throws(FormulaError) in
                if and { try compiler.emit(right, as: .bool, takes) } else { compiler.push(.number(1), .bool) }
                return .bool
            },
            otherwise: { compiler throws(FormulaError) in
                if and { compiler.push(.number(0), .bool) } else { try compiler.emit(right, as: .bool, takes) }
                return .bool
            }, at: right.offset)
    }

    /// After a condition on the number stack: the code of `then` and `otherwise`, one of which
    /// runs, each leaving one value of the same kind.
    private mutating func emitBranches(
        then: (inout FormulaCompiler) throws(FormulaError) -> ValueKind,
        otherwise: (inout FormulaCompiler) throws(FormulaError) -> ValueKind, at offset: Int
    ) throws(FormulaError) -> ValueKind {
        instructions.append(.jumpUnless(target: 0))
        numbers -= 1
        let test = instructions.count - 1
        let (numbersBefore, textsBefore) = (numbers, texts)
        let kind = try then(&self)
        instructions.append(.jump(target: 0))
        let exit = instructions.count - 1
        instructions[test] = .jumpUnless(target: instructions.count)
        (numbers, texts) = (numbersBefore, textsBefore)
        let other = try otherwise(&self)
        instructions[exit] = .jump(target: instructions.count)
        guard kind == other else {
            throw FormulaError(
                offset: offset, "the values on each side of ':' are of one kind: \(Self.words(kind)) and \(Self.words(other))")
        }
        return kind
    }

    private mutating func emitCall(_ name: String, _ arguments: [FormulaSyntax], at offset: Int) throws(FormulaError) -> ValueKind {
        guard let function = FormulaFunction(rawValue: name) else {
            if lookup(name) != nil || Self.deviceNames.contains(name) {
                throw FormulaError(offset: offset, "'\(name)' is no function; a name is read without '(…)'")
            }
            throw FormulaError(offset: offset, "unknown function '\(name)'" + unknown(name, true))
        }
        guard function.arity.contains(arguments.count) else {
            let (low, high) = (function.arity.lowerBound, function.arity.upperBound)
            let count =
                low == high
                ? (low == 0 ? "no arguments" : low == 1 ? "1 argument" : "\(low) arguments")
                : high == .max ? "\(low) or more arguments" : "\(low) or \(high) arguments"
            throw FormulaError(offset: offset, "\(name) takes \(count), \(function.usage); found \(arguments.count)")
        }
        let takes = "\(name) takes numbers"
        switch function {
        case .random:
            push(.random(site: randomSites), .number)
            randomSites += 1
        case .gaussian:
            for argument in arguments { try emit(argument, as: .number, takes) }
            push(.gaussian(site: randomSites), .number, popping: 2)
            randomSites += 1
        case .min, .max:
            // Pairwise: min(a, b, c) is min(min(a, b), c).
            try emit(arguments[0], as: .number, takes)
            for argument in arguments.dropFirst() {
                try emit(argument, as: .number, takes)
                push(.call(function, arguments: 2), .number, popping: 2)
            }
        default:
            for argument in arguments { try emit(argument, as: .number, takes) }
            push(.call(function, arguments: arguments.count), .number, popping: arguments.count)
        }
        return .number
    }
}
