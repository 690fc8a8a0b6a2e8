import MQTT
@testable import Simulator
import Testing

/// Issue 38, item 17: the client ids devsim makes itself, within the limit of the protocol
/// they are spoken in (MQTT 3.1: 23 characters), still distinct.
@Suite struct ClientIDTests {
    @Test func anIdWithinTheLimitIsKeptWhole() {
        #expect(ProtocolVersion.v31.clientID("devsim-control-a-all") == "devsim-control-a-all")
        let long = "devsim-verify-4711-2-3735928559"
        #expect(ProtocolVersion.v311.clientID(long) == long && ProtocolVersion.v5.clientID(long) == long)
    }

    @Test func aLongerOneKeepsItsHeadAndAHashOfTheWhole() {
        let first = ProtocolVersion.v31.clientID("devsim-verify-4711-1-3735928559")
        let second = ProtocolVersion.v31.clientID("devsim-verify-4711-2-3735928559")
        #expect(first.hasPrefix("devsim-verify-") && first.utf8.count <= 23, "\(first)")
        #expect(first != second, "ids that differ past the head still differ")
        #expect(first == ProtocolVersion.v31.clientID("devsim-verify-4711-1-3735928559"), "the same id each time")
        let wide = ProtocolVersion.v31.clientID("Überwachung-der-Kühlräume-1")
        #expect(wide.utf8.count <= 23 && wide.hasPrefix("Überwachung"), "\(wide)")
    }

    @Test func recordsDefaultIdFitsMQTT31() {
        var settings = RecordSettings(path: "/dev/null")
        settings.protocolVersion = .v31
        let id = settings.clientOptions.clientID ?? ""
        #expect(id.hasPrefix("devsim-record") && id.utf8.count <= 23, "\(id)")
    }
}
