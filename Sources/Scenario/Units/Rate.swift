/// How often something happens: `10/s`, `600/min`, `10Hz`, `1/60s`, or `max`.
public enum Rate: Sendable, Equatable {
    /// Once every so many seconds.
    case every(seconds: Double)
    /// As fast as the broker takes.
    case max

    /// Events per second; infinite for `max`.
    public var perSecond: Double {
        switch self {
        case .every(let seconds): 1 / seconds
        case .max: .infinity
        }
    }
}
