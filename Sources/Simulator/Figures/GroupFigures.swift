/// One device group's part of the report: its name and its figures, side by side in one object.
public struct GroupFigures: Codable, Sendable, Equatable {
    public var name: String
    public var figures: Figures

    public init(name: String, figures: Figures) {
        self.name = name
        self.figures = figures
    }

    public subscript(figure: Figure) -> Int { figures[figure] }

    private enum CodingKeys: String, CodingKey { case name }

    public init(from decoder: any Decoder) throws {
        name = try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .name)
        figures = try Figures(from: decoder)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try figures.encode(to: encoder)
    }
}
