import Foundation
import Testing
@testable import KeychainLinux

/// The `%XX` escapes of a D-Bus address (decoded by KeychainPrimitives' codec): decoded after the
/// address is split, so an escaped `;` or `,` stays inside its value; a malformed escape or a value
/// that is not UTF-8 refuses the address instead of connecting somewhere else.
@Suite("D-Bus address escapes")
struct DBusAddressEscapeTests {
    @Test("escaped bytes decode inside the value they belong to")
    func decoded() throws {
        #expect(try DBusAddress(parsing: "unix:path=/tmp/a%20b%2cc").sockets == [.path("/tmp/a b,c")])
        #expect(try DBusAddress(parsing: "unix:abstract=x%3By;unix:path=/run/p").sockets == [.abstract("x;y"), .path("/run/p")])
        #expect(try DBusAddress(parsing: "unix:path=/tmp/caf%C3%A9").sockets == [.path("/tmp/café")])
    }

    @Test("a malformed escape is refused, naming it", arguments: ["unix:path=/tmp/%", "unix:path=/tmp/%2", "unix:path=/tmp/%zz", "unix:abstract=%+1"])
    func malformed(_ address: String) {
        #expect(throws: DBusFailure.protocolViolation("a malformed escape in a bus address")) { try DBusAddress(parsing: address) }
    }

    @Test("an escape that makes the value invalid UTF-8 is refused")
    func notUTF8() {
        #expect(throws: DBusFailure.protocolViolation("a bus address that is not UTF-8")) { try DBusAddress(parsing: "unix:path=/tmp/%FF") }
    }
}
