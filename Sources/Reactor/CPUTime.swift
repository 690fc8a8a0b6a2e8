import CLinux
import Glibc

/// How much of the machine's time went where: this process's CPU time, and the machine's cores,
/// busy, stolen (a virtual machine's host running others) or idle. Read at two moments, their
/// differences say whether a load generator, or the machine it runs on, had room to spare.
package enum CPUTime {
    /// This process's CPU time, user and system, every thread's: `CLOCK_PROCESS_CPUTIME_ID`.
    package static func process() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &spec)
        return UInt64(spec.tv_sec) &* 1_000_000_000 &+ UInt64(spec.tv_nsec)
    }

    /// The cores this process may use: those `sched_getaffinity` lets it run on (a container's
    /// CPU set), or those online, and no more than a cgroup's CPU quota allows (`cpu.max`).
    package static var usableCores: Int {
        var set = cpu_set_t()
        let allowed =
            sched_getaffinity(0, MemoryLayout<cpu_set_t>.size, &set) == 0
            ? withUnsafeBytes(of: &set) { $0.reduce(0) { $0 + $1.nonzeroBitCount } } : 0
        let cores = allowed > 0 ? allowed : max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        return min(cores, quotaCores ?? cores)
    }

    /// The cores a cgroup v2 CPU quota allows, rounded up (`/sys/fs/cgroup/cpu.max`: `QUOTA
    /// PERIOD`, or `max` for none); `nil` without one.
    private static var quotaCores: Int? {
        guard let file = fopen("/sys/fs/cgroup/cpu.max", "r") else { return nil }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 64)
        guard fgets(&line, Int32(line.count), file) != nil else { return nil }
        let fields = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            .split(whereSeparator: \.isWhitespace).compactMap { Double($0) }
        guard fields.count == 2, fields[1] > 0 else { return nil }
        return max(1, Int((fields[0] / fields[1]).rounded(.up)))
    }

    /// The machine's cores over their life, in clock ticks, from the first line of `/proc/stat`.
    package struct Machine: Sendable, Equatable {
        /// Running anything: user, nice, system, interrupts.
        package var busy: UInt64 = 0
        /// Taken by the hypervisor for other guests.
        package var steal: UInt64 = 0
        package var total: UInt64 = 0

        package init() {}

        /// Of the time since `earlier`, the shares busy (stolen time included) and stolen, in
        /// percent; `nil` where nothing could be read.
        package func shares(since earlier: Machine) -> (busy: Double, steal: Double)? {
            let total = Double(self.total &- earlier.total)
            guard total > 0 else { return nil }
            return (Double(busy &- earlier.busy + steal &- earlier.steal) * 100 / total, Double(steal &- earlier.steal) * 100 / total)
        }
    }

    /// `cpu  user nice system idle iowait irq softirq steal …`; zeros where it cannot be read.
    package static func machine() -> Machine {
        var reading = Machine()
        guard let file = fopen("/proc/stat", "r") else { return reading }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 256)
        guard fgets(&line, Int32(line.count), file) != nil else { return reading }
        let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let fields = text.split(whereSeparator: \.isWhitespace).dropFirst().compactMap { UInt64($0) }
        guard fields.count >= 8 else { return reading }
        reading.busy = fields[0] + fields[1] + fields[2] + fields[5] + fields[6]
        reading.steal = fields[7]
        reading.total = fields.prefix(8).reduce(0, +)
        return reading
    }
}
