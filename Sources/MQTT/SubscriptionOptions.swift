/// MQTT 5's subscription options beside the QoS (3.8.3.1): what a SUBSCRIBE asks of the broker
/// about retained messages. MQTT 3 has none: its SUBSCRIBE carries the QoS alone.
package struct SubscriptionOptions: Sendable, Equatable {
    /// When the broker sends the retained messages that match a filter (Retain Handling).
    package enum RetainHandling: UInt8, Sendable {
        /// At every SUBSCRIBE, as MQTT 3 does.
        case atSubscribe = 0
        /// Only at a SUBSCRIBE that makes a new subscription.
        case atNewSubscribe = 1
        /// Never: only what is published from now on.
        case never = 2
    }

    /// Messages forwarded keep the retain flag their publisher set (Retain As Published); without
    /// it the broker clears the flag of every message but those sent because of the SUBSCRIBE.
    package var retainAsPublished: Bool
    package var retainHandling: RetainHandling

    package init(retainAsPublished: Bool = false, retainHandling: RetainHandling = .atSubscribe) {
        self.retainAsPublished = retainAsPublished
        self.retainHandling = retainHandling
    }

    /// The bits they set in a SUBSCRIBE's options byte, beside the QoS's (libmosquitto's
    /// `MQTT_SUB_OPT_RETAIN_AS_PUBLISHED`, `MQTT_SUB_OPT_SEND_RETAIN_*`).
    package var bits: Int32 { (retainAsPublished ? 0x08 : 0) | Int32(retainHandling.rawValue) << 4 }
}
