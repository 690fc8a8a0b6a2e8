import MQTT
import Testing

@testable import Mosquitto

/// A device's property lists with a Topic Alias (issue 29, item 1, from its review).
@Suite struct PropertyListTests {
    /// On a connection shared by thousands of devices, a device's topic may get alias 5,000: it
    /// holds the one list it uses, not one per number up to its own (which made a fleet's
    /// memory grow as the square of its devices: 8,000 devices on one connection took 335 MB,
    /// 56 MB without aliases), and a new connection's aliases replace the old connection's.
    @Test func aDeviceHoldsTheListsOfItsAliasesOnThisConnectionAlone() throws {
        var properties = PublishProperties()
        properties.contentType = "text/plain"
        properties.topicAlias = true
        let lists = try PropertyList(properties)
        let first = try lists.list(alias: 5_000, connection: 1)
        #expect(first != nil && lists.aliasListCount == 1)
        #expect(try lists.list(alias: 5_000, connection: 1) == first, "made once a connection")
        _ = try lists.list(alias: 7, connection: 2)
        _ = try lists.list(alias: 9, connection: 2)
        #expect(lists.aliasListCount == 2, "the first connection's freed")
    }
}
