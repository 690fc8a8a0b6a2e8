/// One device group's part of the report.
public struct GroupFigures: Codable, Sendable, Equatable {
    public var name: String
    public var scheduled: Int
    public var published: Int
    public var acknowledged: Int
    public var inFlight: Int
    public var skippedOffline: Int
    public var droppedBuffer: Int
    public var buffered: Int
    public var failed: Int
    public var late: Int
    public var reconnects: Int

    public init(name: String, totals t: Totals) {
        self.name = name
        scheduled = t.scheduled
        published = t.published
        acknowledged = t.acknowledged
        inFlight = t.inFlight
        skippedOffline = t.skippedOffline
        droppedBuffer = t.droppedBuffer
        buffered = t.buffered
        failed = t.failed
        late = t.late
        reconnects = t.reconnects
    }
}
