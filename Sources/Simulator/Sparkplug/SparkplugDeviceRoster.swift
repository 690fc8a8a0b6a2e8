/// Which devices of a Sparkplug edge node are born (their DBIRTH out on the node's session, no
/// DDEATH since) while `devices` stages bring them in and take them out and the node stays
/// (3.0, "Device Session Establishment" and "Termination"): the node's births are its devices'
/// that are in, a device that leaves has its DDEATH, one that comes back its DBIRTH. A node is
/// connected while its first device is in, which the stages bring in first and take out last;
/// its NDEATH says the rest. A value, confined with its connection.
struct SparkplugDeviceRoster {
    /// Whether each device's DBIRTH is out on the node's session; none while the node's births
    /// are not (before them, after its NDEATH or a loss).
    private(set) var born: [Bool]
    /// Whether the node's NBIRTH is out on the connection under way.
    private(set) var nodeIsBorn = false

    init(devices: Int) {
        born = Array(repeating: false, count: devices)
    }

    /// The node's births (at a CONNACK, after a rebirth request, when its primary host comes
    /// online), with which of its devices are in: the devices whose DBIRTH follows the NBIRTH.
    mutating func births(in isIn: [Bool]) -> [Int] {
        nodeIsBorn = true
        born = isIn
        return born.indices.filter { born[$0] }
    }

    /// The node's births no longer hold: its NDEATH, a lost connection, a wait for its primary
    /// host. Its next births say who is in.
    mutating func nodeDied() {
        nodeIsBorn = false
        born = Array(repeating: false, count: born.count)
    }

    /// The devices' presence now: the DDEATH of each born device that is out, the DBIRTH of each
    /// device in that is not born; nothing while the node is not born, whose births will say.
    mutating func turned(in isIn: [Bool]) -> (deaths: [Int], births: [Int]) {
        guard nodeIsBorn else { return ([], []) }
        let deaths = born.indices.filter { born[$0] && !isIn[$0] }
        let births = born.indices.filter { !born[$0] && isIn[$0] }
        born = isIn
        return (deaths, births)
    }

    /// Whether device `index`'s data waits for its DBIRTH: the node is born and it is not (a
    /// tick that falls as the stages bring it in, before the node has heard of it). While the
    /// node is not born, its connection says where the data goes.
    func holdsData(of index: Int) -> Bool {
        nodeIsBorn && !born[index]
    }
}
