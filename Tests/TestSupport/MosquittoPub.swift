/// `mosquitto_pub` (mosquitto-clients): a client devsim has no part in, publishing to a broker
/// on 127.0.0.1.
///
/// ```swift
/// #expect(try MosquittoPub.publish(port: broker.port, topic: "t", message: "hello") == 0)
/// ```
public enum MosquittoPub {
    /// Runs `mosquitto_pub -h 127.0.0.1 -p PORT ARGUMENTS` to its end, or for `timeout` seconds.
    public static func run(
        port: UInt16, _ arguments: [String], timeout: Double = 5
    ) throws(TestSupportError) -> (status: Int32?, stdout: String, stderr: String) {
        try DevsimProcess.runToCompletion(
            executable: "mosquitto_pub", args: ["-h", "127.0.0.1", "-p", String(port)] + arguments, timeout: timeout)
    }

    /// Publishes `message` on `topic` at QoS 1, with `extra` arguments (`-u`, `-P`); the exit
    /// status, `nil` if it did not end within 5 s.
    public static func publish(port: UInt16, topic: String, message: String, extra: [String] = []) throws(TestSupportError) -> Int32? {
        try run(port: port, ["-t", topic, "-m", message, "-q", "1"] + extra).status
    }
}
