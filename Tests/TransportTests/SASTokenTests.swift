import Testing
import TestSupport
@testable import Transport

/// Issue 27, item 3: Azure IoT Hub's SAS tokens, against Microsoft's published answer and against
/// the algorithm computed another way (openssl's command line, Foundation's URL-encoding).
@Suite struct SASTokenTests {
    /// Microsoft's DPS documentation (concepts-symmetric-key-attestation.md): an enrollment
    /// group's key and a registration id give this device key.
    @Test func aGroupKeyDerivesMicrosoftsPublishedDeviceKey() {
        let derived = SASToken.deriveDeviceKey(
            groupKey: "8isrFI1sGsIlvvFSSFRiMfCNzv21fjbE/+ah/lSh3lF8e2YG1Te7w1KpZhJFFXJrqYKi9yegxkqIChbqOS9Egw==",
            registrationID: "sn-007-888-abc-mac-a1-b2-c3-d4-e5-f6")
        #expect(derived == "Jsm0lyGpjaVYVP2g3FnmnmG9dI/9qU24wNoykUmermc=")
    }

    @Test func keysAreReadWithOrWithoutTheirPadding() {
        // "devsim" is 6 bytes (no padding), "devsim!" 7 (one '='), "devsim!!" 8 (two).
        #expect(SASToken.decodeKey("ZGV2c2lt") == Array("devsim".utf8))
        #expect(SASToken.decodeKey("ZGV2c2ltIQ==") == Array("devsim!".utf8))
        #expect(SASToken.decodeKey("ZGV2c2ltIQ") == Array("devsim!".utf8))
        #expect(SASToken.decodeKey("ZGV2c2ltISE=") == Array("devsim!!".utf8))
        #expect(SASToken.decodeKey("ZGV2c2ltISE") == Array("devsim!!".utf8))
        #expect(
            SASToken.deriveDeviceKey(groupKey: "ZGV2c2ltIQ", registrationID: "a")
                == SASToken.deriveDeviceKey(groupKey: "ZGV2c2ltIQ==", registrationID: "a"))
    }

    @Test(arguments: ["", "not base64!", "ZGV2c2lt=", "ZG=V2", "ZGV2c", "ZGV2c2ltIQ=", "=="])
    func aKeyThatIsNotBase64IsRefused(_ key: String) {
        #expect(SASToken.decodeKey(key) == nil)
        #expect(SASToken.make(resource: "hub/devices/d", key: key, expiry: 1) == nil)
    }

    /// The token recomputed with `openssl dgst -sha256 -mac HMAC`; the expiries are chosen so
    /// that the signatures hold '+', '/' and '=', which must be sent as %2B, %2F and %3D, and the
    /// resource's '/' as %2F.
    @Test func theTokenIsMicrosoftsAlgorithmComputedAnotherWay() throws {
        let key = "8isrFI1sGsIlvvFSSFRiMfCNzv21fjbE/+ah/lSh3lF8e2YG1Te7w1KpZhJFFXJrqYKi9yegxkqIChbqOS9Egw=="
        let resource = "contoso.azure-devices.net/devices/sensor-1"
        var seen: Set<Character> = []
        var expiry: Int64 = 1_700_000_000
        while seen != ["+", "/"], expiry < 1_700_000_100 {
            let token = try #require(SASToken.make(resource: resource, key: key, expiry: expiry))
            let expected = try AzureSASReference.token(resource: resource, base64Key: key, expiry: expiry)
            #expect(token == expected)
            #expect(token.hasPrefix("SharedAccessSignature sr=contoso.azure-devices.net%2Fdevices%2Fsensor-1&sig="))
            #expect(token.hasSuffix("%3D&se=\(expiry)"), "a SHA-256 MAC's base64 ends in one '='")
            #expect(!token.contains("skn="), "a device's own key has no policy name")
            let signature = try AzureSASReference.mac(base64Key: key, message: "contoso.azure-devices.net%2Fdevices%2Fsensor-1\n\(expiry)")
            for character in signature where character == "+" || character == "/" {
                seen.insert(character)
                #expect(token.contains(character == "+" ? "%2B" : "%2F"))
            }
            expiry += 1
        }
        #expect(seen == ["+", "/"], "some signature held both '+' and '/'")
    }

    @Test func urlEncodingKeepsOnlyTheUnreservedCharacters() {
        #expect(SASToken.urlEncoded("a-b.c_d~e/f+g=h i?&") == "a-b.c_d~e%2Ff%2Bg%3Dh%20i%3F%26")
    }
}
