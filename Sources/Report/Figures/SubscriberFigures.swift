/// One subscriber group's part of the report (`subscribers`): what its connections received,
/// apart from every figure of the devices'.
public struct SubscriberFigures: Codable, Sendable, Equatable {
    public var name: String
    /// Whether its filters are shared subscriptions (`$share/…`): the broker deals each message
    /// to one member, so `received` adds up to what was published once, not once per member.
    public var shared: Bool
    /// Its connections in this run (this shard's, with `--shard`).
    public var connections = 0
    /// Connections whose subscriptions the broker acknowledged (SUBACK) at least once.
    public var subscribed = 0
    /// Messages delivered to its connections, all of them added up: copies, retained messages
    /// sent for the subscription, and messages on topics no device of the run publishes on,
    /// included.
    public var received = 0
    /// Connections that received at least one message: in a shared group, how many the broker
    /// dealt the stream over.
    public var connectionsReceiving = 0
    /// `received` over the run's length.
    public var ratePerSecond = 0.0
    /// From the payload's timestamp to the receipt, for the messages whose payload has one
    /// (see `VerifyPlan`); absent when none had.
    public var latency: Percentiles? = nil
    /// Messages whose sequence number (`seq`, or the device group's `verify.sequence`) the
    /// member had received before; in a shared group, that any member had.
    public var duplicates = 0
    /// New sequence numbers that came after a higher one on their topic; `nil` (absent from the
    /// report) for a shared group, whose members all read on one event loop, in the order it
    /// finds their sockets ready: an order that says nothing of the broker's.
    public var outOfOrder: Int?
    /// Sequence numbers missing between the lowest and highest received on each topic (per
    /// member; per group when shared): what the broker dropped for the group. A tick skipped
    /// offline takes no number (`Device.tickUnmade`); one evicted from a full buffer keeps its.
    public var gaps = 0
    /// The raw histogram behind `latency`, for `report merge`.
    public var histogram: HistogramData? = nil

    public init(name: String, shared: Bool, histogram: HistogramData? = nil) {
        self.name = name
        self.shared = shared
        self.histogram = histogram
        outOfOrder = shared ? nil : 0
    }

    /// One line for the run log.
    package var logLine: String {
        "subscriber group '\(name)'\(shared ? " (shared)" : ""): \(subscribed)/\(connections) subscribed, received \(received) "
            + "(\(Text.fixed(ratePerSecond, decimals: 1)) msg/s)"
            + (latency.map { ", latency p50 \($0.p50) ms, p99 \($0.p99) ms" } ?? "")
            + ", duplicates \(duplicates)\(outOfOrder.map { ", out of order \($0)" } ?? ""), gaps \(gaps)"
    }

    /// `other`, a shard's part of the same group, added to this one: counts and rates add up
    /// (the shards ran side by side), the latency is made anew from both histograms.
    package func beside(_ other: SubscriberFigures) -> SubscriberFigures {
        var sum = self
        sum.connections += other.connections
        sum.subscribed += other.subscribed
        sum.received += other.received
        sum.connectionsReceiving += other.connectionsReceiving
        sum.ratePerSecond = ((ratePerSecond + other.ratePerSecond) * 100).rounded() / 100
        sum.duplicates += other.duplicates
        sum.outOfOrder = shared ? nil : (outOfOrder ?? 0) + (other.outOfOrder ?? 0)
        sum.gaps += other.gaps
        if let mine = try? histogram?.histogram(), let theirs = try? other.histogram?.histogram() {
            var merged = mine
            merged.merge(theirs)
            sum.histogram = HistogramData(merged)
            sum.latency = merged.isEmpty ? nil : Percentiles(merged)
        } else {
            sum.histogram = nil
            sum.latency = nil
        }
        return sum
    }
}
