import CMosquitto
import MQTT

extension Client {
    /// Replaces the will the next CONNECT carries (`mosquitto_will_set`, or `mosquitto_will_clear`
    /// for none): a Sparkplug edge node's NDEATH names the bdSeq of the connection it is the will
    /// of, one more with every CONNECT. libmosquitto sends the will in CONNECT alone, so a change
    /// while connected takes effect at the next attempt.
    package func setWill(_ will: Will?) throws(ClientSetupError) {
        do {
            if let will {
                try check(
                    will.payload.withUnsafeBytes { bytes in
                        mosquitto_will_set(handle, will.topic, Int32(bytes.count), bytes.baseAddress, will.qos.rawValue, will.retain)
                    })
            } else {
                try check(mosquitto_will_clear(handle))
            }
        } catch {
            throw ClientSetupError(option: "will", error: error)
        }
        options.will = will
    }
}
