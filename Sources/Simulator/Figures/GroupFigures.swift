/// One device group's part of the report: its name and its figures, side by side in one object.
public struct GroupFigures: Codable, Sendable, Equatable {
    public var name: String
    public var figures: Figures
    /// The commands to the group's devices; absent for a group that takes none.
    public var commands: CommandCounts?

    public init(name: String, figures: Figures, commands: CommandCounts? = nil) {
        self.name = name
        self.figures = figures
        self.commands = commands
    }

    public subscript(figure: Figure) -> Int { figures[figure] }

    private enum CodingKeys: String, CodingKey { case name, commands }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        commands = try container.decodeIfPresent(CommandCounts.self, forKey: .commands)
        figures = try Figures(from: decoder)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encodeIfPresent(commands, forKey: .commands)
        try figures.encode(to: encoder)
    }
}
