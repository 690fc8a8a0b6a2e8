import Reactor

/// Where a replaying device is in its recording: the next message, and when it is due. Pure: the
/// deadline of message `index` of lap `lap` is `start + (lap × period + time[index]) / speed`,
/// computed rather than added up, so a device that loops for a day does not drift, and a late
/// message does not move the ones after it.
package struct ReplayCursor: Sendable, Equatable {
    /// Each message's seconds from the start of the recording, ascending.
    package let times: [Double]
    /// Seconds of the recording from one lap's first message to the next lap's.
    package let period: Double
    package let speed: Double
    package let loops: Bool
    /// When the recording's time 0 falls, in monotonic nanoseconds.
    package let start: UInt64
    /// The next message's index in `times`, and how many laps are behind it.
    package private(set) var index = 0
    package private(set) var lap = 0

    /// `period` is used when `loops`: at least the span of `times`, and above 0.
    package init(times: [Double], period: Double, speed: Double, loops: Bool, start: UInt64) {
        precondition(speed > 0 && (!loops || period > 0), "a replay loops over a period above 0, at a speed above 0")
        self.times = times
        self.period = period
        self.speed = speed
        self.loops = loops
        self.start = start
    }

    /// Every message sent, and no loop to start again.
    package var isFinished: Bool { index >= times.count }

    /// The next message's seconds from the start, in the recording's time (before `speed`).
    package var recordedTime: Double { Double(lap) * period + times[index] }

    /// The next message's seconds after `start`, as played.
    package var elapsed: Double { recordedTime / speed }

    /// When the next message is due; not for a finished cursor.
    package var deadline: UInt64 { start &+ MonotonicClock.nanoseconds(elapsed) }

    /// On to the message after: the first of the next lap after the last, when looping.
    package mutating func advance() {
        index += 1
        if index == times.count, loops {
            index = 0
            lap += 1
        }
    }

    /// The typical seconds between one message of a topic and the next of the same topic: the
    /// median of those gaps over every topic; of any two messages when no topic repeats; 1 when
    /// every message falls at one instant.
    package static func typicalInterval(times: [Double], topics: [Int]) -> Double {
        var last: [Int: Double] = [:]
        var gaps: [Double] = []
        for (time, topic) in zip(times, topics) {
            if let before = last[topic], time > before { gaps.append(time - before) }
            last[topic] = time
        }
        if gaps.isEmpty { gaps = zip(times, times.dropFirst()).map { $1 - $0 }.filter { $0 > 0 } }
        guard !gaps.isEmpty else { return 1 }
        gaps.sort()
        return gaps[gaps.count / 2]
    }
}
