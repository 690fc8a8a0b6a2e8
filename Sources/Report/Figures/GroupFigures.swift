/// One device group's part of the report: its name and its figures, side by side in one object.
public struct GroupFigures: Codable, Sendable, Equatable {
    public var name: String
    public var figures: Figures
    /// The commands to the group's devices; absent for a group that takes none.
    public var commands: CommandCounts?
    /// Each stage of the group's own load profile that the run reached; absent for a group
    /// without stages of its own.
    public var stages: [GroupStageFigures]?
    /// The group's `refused`, by reason; absent when the broker refused it nothing.
    public var refusals: Refusals?

    public init(
        name: String, figures: Figures, commands: CommandCounts? = nil, stages: [GroupStageFigures]? = nil, refusals: Refusals? = nil
    ) {
        self.name = name
        self.figures = figures
        self.commands = commands
        self.stages = stages
        self.refusals = refusals
    }

    public subscript(figure: Figure) -> Int { figures[figure] }

    private enum CodingKeys: String, CodingKey { case name, commands, stages, refusals }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        commands = try container.decodeIfPresent(CommandCounts.self, forKey: .commands)
        stages = try container.decodeIfPresent([GroupStageFigures].self, forKey: .stages)
        refusals = try container.decodeIfPresent(Refusals.self, forKey: .refusals)
        figures = try Figures(from: decoder)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encodeIfPresent(commands, forKey: .commands)
        try container.encodeIfPresent(stages, forKey: .stages)
        try container.encodeIfPresent(refusals, forKey: .refusals)
        try figures.encode(to: encoder)
    }
}
