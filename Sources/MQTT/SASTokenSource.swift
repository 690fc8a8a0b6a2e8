/// How a connection makes its password at each connect: an Azure IoT Hub SAS token for
/// `resource`, signed with `key`, valid for `lifetime` from the connect. A token depends on the
/// time, so it cannot be a fixed password; the connection makes one before every attempt and
/// renews it, by reconnecting, before it expires. The key is a secret: no description, dump or
/// mirror of this value shows it.
public struct SASTokenSource: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// `<hub>/devices/<id>`.
    package var resource: String
    /// The device's key, base64-decoded.
    package var key: [UInt8]
    package var lifetime: Duration

    package init(resource: String, key: [UInt8], lifetime: Duration) {
        self.resource = resource
        self.key = key
        self.lifetime = lifetime
    }

    public var description: String { "SAS token for \(resource), valid \(lifetime.components.seconds) s" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["resource": resource, "lifetime": lifetime]) }
}
