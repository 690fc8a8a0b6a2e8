import Foundation
import Glibc
import Simulator
import Testing

/// Issue 26, item 3: `--password-file` and `--http-token-file` read by the library, with the
/// messages the command line gives.
@Suite struct CredentialFilesTests {
    /// A folder of its own, removed after `body`.
    private func inFolder(_ body: (String) throws -> Void) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("devsim-secrets-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try body(folder)
    }

    @Test func aPasswordKeepsItsSpacesAndLosesItsLineEnds() throws {
        try inFolder { folder in
            try " pass word \n\r\n".write(toFile: folder + "/password", atomically: true, encoding: .utf8)
            #expect(try CredentialFiles.password(at: folder + "/password") == " pass word ")
            try "no newline".write(toFile: folder + "/bare", atomically: true, encoding: .utf8)
            #expect(try CredentialFiles.password(at: folder + "/bare") == "no newline")
        }
    }

    @Test func aPasswordFileThatCannotBeReadSaysWhy() throws {
        try inFolder { folder in
            #expect(throws: RunCheckError("--password-file: cannot read '\(folder)/none': no such file or directory")) {
                try CredentialFiles.password(at: folder + "/none")
            }
            // There, and readable by its permissions, but no file's contents: a directory.
            #expect(throws: RunCheckError("--password-file: cannot read '\(folder)': is a directory")) {
                try CredentialFiles.password(at: folder)
            }
            try Data([0x70, 0xFF, 0xFE]).write(to: URL(fileURLWithPath: folder + "/binary"))
            #expect(throws: RunCheckError("--password-file: '\(folder)/binary' is not UTF-8 text")) {
                try CredentialFiles.password(at: folder + "/binary")
            }
        }
    }

    /// Issue 38, item 21: `--password-file <(echo pw)` said "it cannot be read": Foundation's
    /// reader goes by a file's size, and a pipe has none. Read to its end, as `/dev/stdin` is.
    @Test func aPipeIsReadToItsEnd() throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        let written = "pw from a pipe\n".utf8.withContiguousStorageIfAvailable { write(ends[1], $0.baseAddress, $0.count) }
        #expect(written == 15)
        close(ends[1])
        defer { close(ends[0]) }
        #expect(try CredentialFiles.password(at: "/dev/fd/\(ends[0])") == "pw from a pipe")
        // A device that never ends is refused at MQTT's longest password.
        #expect(throws: RunCheckError("--password-file: cannot read '/dev/zero': it holds more than 65535 bytes")) {
            try CredentialFiles.password(at: "/dev/zero")
        }
    }

    @Test func aTokenIsTrimmedAndMustNotBeEmpty() throws {
        try inFolder { folder in
            try "\n  s3cret-token \n".write(toFile: folder + "/token", atomically: true, encoding: .utf8)
            #expect(try CredentialFiles.token(at: folder + "/token") == "s3cret-token")
            try " \n\t\n".write(toFile: folder + "/blank", atomically: true, encoding: .utf8)
            #expect(throws: RunCheckError("--http-token-file: '\(folder)/blank' is empty")) {
                try CredentialFiles.token(at: folder + "/blank")
            }
            #expect(throws: RunCheckError("--http-token-file: cannot read '\(folder)/none': no such file or directory")) {
                try CredentialFiles.token(at: folder + "/none")
            }
        }
    }
}
