import Foundation
import Testing
@testable import KeychainSync

/// The names and texts KeychainSync built with Foundation before it moved to FoundationEssentials
/// (`String(format:)`, `replacingOccurrences`, `JSONSerialization`), checked against Foundation:
/// names already on transports may never change.
@Suite("KeychainSync without Foundation: the same names and texts")
struct EssentialsReplacementTests {
    @Test("an epoch's name is String(format: \"%010u\") for every width of number")
    func epochNames() {
        for epoch: UInt32 in [0, 1, 9, 10, 42, 99_999, 1_000_000_000, 4_294_967_294, .max] {
            #expect(CircleLayout.epochName(epoch) == String(format: "%010u", epoch))
            #expect(CircleLayout.roster(epoch) == "roster/" + String(format: "%010u", epoch))
        }
    }

    @Test("a name shown from an untrusted place escapes each byte as String(format: \"\\\\x%02x\") did")
    func printableNames() {
        let every = String(decoding: (0...255).map { UInt8($0) }, as: UTF8.self) + "\\ \u{1b}[2J é ☃"
        var expected = ""
        for byte in every.utf8.prefix(300) {
            if byte >= 0x20 && byte < 0x7F && byte != UInt8(ascii: "\\") {
                expected.unicodeScalars.append(UnicodeScalar(byte))
            } else {
                expected += String(format: "\\x%02x", byte)
            }
        }
        #expect(TransportRecordName.printable(every) == expected + (every.utf8.count > 300 ? "…" : ""))
    }

    @Test("shell quoting is replacingOccurrences(of: \"'\", with: \"'\\\\''\") in single quotes")
    func shellQuoting() {
        for text in ["", "plain", "it's", "''", "'a'b'", "/path with spaces/repo.git", "$(rm -rf ~)'\"`"] {
            #expect(GitTransport.shellQuoted(text) == "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'")
        }
    }

    @Test("an etcd error body: its message or error member, or the plain text; a body with the member twice is plain text")
    func etcdErrorMessages() {
        #expect(EtcdClient.errorMessage(Data(#"{"error":"etcdserver: user name is empty","code":3,"message":"etcdserver: user name is empty"}"#.utf8))
                == "etcdserver: user name is empty")
        #expect(EtcdClient.errorMessage(Data(#"{"error":"only the error"}"#.utf8)) == "only the error")
        #expect(EtcdClient.errorMessage(Data("404 page not found\n".utf8)) == "404 page not found")
        // Which of two members a reader keeps differs: not trusted as a message.
        #expect(EtcdClient.errorMessage(Data(#"{"message":"a","message":"b"}"#.utf8)) == #"{"message":"a","message":"b"}"#)
    }
}
