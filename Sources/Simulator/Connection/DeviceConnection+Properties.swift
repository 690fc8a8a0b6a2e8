import MQTT
import Mosquitto

extension DeviceConnection {
    /// `device`'s MQTT 5 properties as libmosquitto's list, made once for all its messages;
    /// `nil` for a device without. A value libmosquitto refuses fails the connection's set-up.
    static func propertyList(of device: DevicePlan) throws(ClientSetupError) -> PropertyList? {
        guard let properties = device.properties else { return nil }
        return try PropertyList(properties)
    }
}
