import Foundation
import Testing
@testable import KeychainLinux

/// The D-Bus client's wire format: marshalling, message framing, addresses, and refusal of
/// malformed input (without crashing) — the parts of the fprintd client that need no daemon.
@Suite("D-Bus wire format")
struct DBusWireTests {
    @Test("a method call round-trips through encoding and decoding")
    func roundTrip() throws {
        var message = DBusMessage.call(destination: "net.reactivated.Fprint", path: "/net/reactivated/Fprint/Device/0",
                                       interface: "net.reactivated.Fprint.Device", member: "VerifyStart",
                                       body: [.string("any"), .boolean(true), .uint64(1 << 40), .byte(7),
                                              .array(elementSignature: "s", [.string("a"), .string("bc")]),
                                              .array(elementSignature: "{sv}", [.dictEntry(key: .string("k"), value: .variant(.int32(-5)))]),
                                              .structure([.int16(-2), .double(1.5), .objectPath("/x")])])
        let bytes = message.encoded(serial: 9)
        #expect(try DBusMessage.length(ofMessageStartingIn: bytes) == bytes.count)
        let decoded = try DBusMessage(decoding: bytes)
        message.serial = 9
        #expect(decoded == message)
    }

    @Test("known bytes: a Hello call as dbus-daemon expects it")
    func helloBytes() throws {
        let hello = DBusMessage.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                     interface: "org.freedesktop.DBus", member: "Hello").encoded(serial: 1)
        #expect(Array(hello.prefix(12)) == [0x6c, 1, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0])
        #expect(hello.count == 128)
    }

    @Test("big-endian messages are read too")
    func bigEndian() throws {
        // "B", method return, no flags, version 1, body 4 bytes, serial 2,
        // fields: REPLY_SERIAL u 1, SIGNATURE g "u"; body: u 0x01020304.
        var bytes: [UInt8] = [0x42, 2, 0, 1, 0, 0, 0, 4, 0, 0, 0, 2, 0, 0, 0, 15]
        bytes += [5, 1, 0x75, 0, 0, 0, 0, 1]  // (y=5, v="u" 1)
        bytes += [8, 1, 0x67, 0, 1, 0x75, 0]  // (y=8, v="g" "u")
        bytes += [0]  // pad to 8
        bytes += [1, 2, 3, 4]
        let message = try DBusMessage(decoding: bytes)
        #expect(message.kind == .methodReturn && message.replySerial == 1 && message.body == [.uint32(0x0102_0304)])
    }

    @Test("malformed input is refused with protocolViolation, never a crash")
    func malformed() throws {
        let good = DBusMessage.call(destination: "d", path: "/p", interface: "i.f", member: "M",
                                    body: [.string("hello"), .array(elementSignature: "s", [.string("x")])]).encoded(serial: 3)
        // Every truncation and every single-byte change either decodes or throws; none traps.
        for length in 0..<good.count {
            _ = try? DBusMessage.length(ofMessageStartingIn: Array(good.prefix(length)))
            _ = try? DBusMessage(decoding: Array(good.prefix(length)))
        }
        for index in good.indices {
            for value: UInt8 in [0, 0x7f, 0xff] {
                var changed = good
                changed[index] = value
                _ = try? DBusMessage(decoding: changed)
            }
        }
        var hugeArray = DBusWriter()
        hugeArray.writeInteger(UInt32(0xffff_fff0))
        var reader = DBusReader(hugeArray.bytes, littleEndian: true)
        #expect(throws: DBusFailure.self) { try reader.readAll(signature: "as") }
        #expect(throws: DBusFailure.self) { try DBusSignature.completeTypes(of: String(repeating: "a", count: 40) + "s") }
        #expect(throws: DBusFailure.self) { try DBusSignature.completeTypes(of: "a{vs}") }
        #expect(throws: DBusFailure.self) { try DBusSignature.completeTypes(of: "(") }
        #expect(try DBusSignature.completeTypes(of: "sa{sv}(ii)") == ["s", "a{sv}", "(ii)"])
    }

    @Test("a byte array is one Data value both ways, in structures and variants too")
    func byteArrays() throws {
        let secret = Data((0..<1000).map { UInt8($0 % 256) })
        let message = DBusMessage.call(destination: "d", path: "/p", interface: "i.f", member: "M",
                                       body: [.structure([.objectPath("/s"), .byteArray(Data()), .byteArray(secret), .string("text/plain")]),
                                              .variant(.byteArray(Data([1, 2, 3])))])
        let decoded = try DBusMessage(decoding: message.encoded(serial: 5))
        #expect(decoded.body == message.body)
        #expect(decoded.body.map(\.signature).joined() == "(oayays)v")
    }

    @Test("a variant holds exactly one complete type: nested structures and dictionaries read back; two types, none or an unknown code are refused")
    func variantSignatures() throws {
        let nested: [DBusValue] = [
            .variant(.structure([.string("s"), .array(elementSignature: "{sv}", [.dictEntry(key: .string("k"), value: .variant(.structure([.uint32(7), .variant(.boolean(true))])))])])),
            .array(elementSignature: "{ov}", [.dictEntry(key: .objectPath("/o"), value: .variant(.array(elementSignature: "(yv)", [.structure([.byte(1), .variant(.string("x"))])])))]),
        ]
        let message = DBusMessage.call(destination: "d", path: "/p", interface: "i.f", member: "M", body: nested)
        #expect(try DBusMessage(decoding: message.encoded(serial: 4)).body == nested)
        // A hostile peer's variants: the signature byte count, the signature, its NUL, then a value.
        let string: [UInt8] = [1, 0, 0, 0, UInt8(ascii: "a"), 0]
        for bytes in [[2, UInt8(ascii: "s"), UInt8(ascii: "s"), 0] + string,  // two types
                      [0, 0],  // no type
                      [1, UInt8(ascii: "z"), 0, 0] + string,  // an unknown code
                      [1, UInt8(ascii: "("), 0, 0] + string,  // an unclosed structure
                      [2, UInt8(ascii: "a"), UInt8(ascii: "{"), 0]] {  // a truncated dictionary
            var reader = DBusReader(bytes, littleEndian: true)
            #expect(throws: DBusFailure.self) { try reader.readAll(signature: "v") }
        }
        var one = DBusReader([1, UInt8(ascii: "s"), 0, 0] + string, littleEndian: true)
        #expect(try one.readAll(signature: "v") == [.variant(.string("a"))])
    }

    @Test("a body of more values than the reader allows is refused; just under the limit it is read")
    func valueLimit() throws {
        func strings(_ count: Int) -> [UInt8] {
            var writer = DBusWriter()
            writer.write(.array(elementSignature: "s", Array(repeating: .string(""), count: count)))
            return writer.bytes
        }
        var under = DBusReader(strings(DBusReader.maximumValues - 1), littleEndian: true)
        #expect(try under.readAll(signature: "as").first?.texts?.count == DBusReader.maximumValues - 1)
        var over = DBusReader(strings(DBusReader.maximumValues), littleEndian: true)
        #expect(throws: DBusFailure.self) { try over.readAll(signature: "as") }
    }

    @Test("a message declared larger than the limit: its length is known from 16 bytes, its header alone decodes")
    func oversizedDeclaration() throws {
        let call = DBusMessage.call(destination: "org.freedesktop.secrets", path: "/org/freedesktop/secrets",
                                    interface: "org.freedesktop.Secret.Service", member: "SearchItems",
                                    body: [.byteArray(Data(count: 16))])
        var bytes = call.encoded(serial: 11)
        let bodyLength = UInt32(DBusMessage.maximumLength + 1)
        for shift in 0..<4 { bytes[4 + shift] = UInt8(truncatingIfNeeded: bodyLength >> (8 * UInt32(shift))) }
        #expect(throws: DBusFailure.self) { try DBusMessage.length(ofMessageStartingIn: bytes) }
        let declared = try #require(try DBusMessage.declaredLength(ofMessageStartingIn: bytes))
        #expect(declared.total == declared.header + Int(bodyLength))
        let header = try DBusMessage(decodingHeaderOf: Array(bytes.prefix(declared.header)))
        #expect(header.member == "SearchItems" && header.serial == 11 && header.body.isEmpty)
    }

    @Test("addresses: unix path and abstract sockets, escapes, alternatives; the system bus default")
    func addresses() throws {
        #expect(try DBusAddress(parsing: "unix:path=/run/dbus/system_bus_socket").sockets == [.path("/run/dbus/system_bus_socket")])
        #expect(try DBusAddress(parsing: "tcp:host=x,port=1;unix:abstract=/tmp/dbus-%41b,guid=00").sockets == [.abstract("/tmp/dbus-Ab")])
        #expect(throws: DBusFailure.self) { try DBusAddress(parsing: "tcp:host=localhost,port=1") }
        #expect(throws: DBusFailure.self) { try DBusAddress(parsing: "unix:path=/x%4") }
        #expect(DBusAddress.systemBus(environment: [:]) == "unix:path=/run/dbus/system_bus_socket")
        #expect(DBusAddress.systemBus(environment: ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/elsewhere"]) == "unix:path=/elsewhere")
    }
}
