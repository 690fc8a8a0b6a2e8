/// A value for every `Figure`: the sums of loops, of a group, of a report.
///
/// It encodes as one key per figure in the object that holds it (the report's top level, a
/// group's object), never as an object of its own: those keys are the report's contract.
public struct Figures: Sendable, Equatable, Codable {
    private var values = [Int](repeating: 0, count: Figure.allCases.count)

    public init() {}

    public subscript(figure: Figure) -> Int {
        get { values[figure.rawValue] }
        set { values[figure.rawValue] = newValue }
    }

    package static func + (lhs: Figures, rhs: Figures) -> Figures {
        var sum = lhs
        sum += rhs
        return sum
    }

    package static func += (lhs: inout Figures, rhs: Figures) {
        for index in lhs.values.indices { lhs.values[index] += rhs.values[index] }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Figure.self)
        for figure in Figure.allCases {
            self[figure] =
                figure.isInEveryReport
                ? try container.decode(Int.self, forKey: figure) : try container.decodeIfPresent(Int.self, forKey: figure) ?? 0
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Figure.self)
        for figure in Figure.allCases { try container.encode(self[figure], forKey: figure) }
    }
}
