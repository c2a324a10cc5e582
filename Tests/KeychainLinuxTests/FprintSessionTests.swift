import Foundation
import PrivateBusSupport
import RequiredToolSupport
import Testing
@testable import KeychainLinux

/// How a fingerprint session finds fprintd, against a stand-in that owns fprintd's name on a
/// private bus (which, like a permissive system bus, delivers replies nobody asked for).
@Suite("fprintd session (a stand-in for fprintd on a private bus)", .integration, .tags(.external, .dbus))
struct FprintSessionTests {
    static let manager = "/net/reactivated/Fprint/Manager"
    static let realReader = "/net/reactivated/Fprint/Device/0"

    @Test("a reply to GetDefaultDevice forged by another client (carrying the call's serial) is not the reader the session uses")
    func forgedDefaultDeviceReply() throws {
        let bus = try PrivateBus()
        let fprintd = try DBusConnection(address: bus.address, timeout: 5)
        #expect(try fprintd.requestName(FprintSession.service, replaceExisting: false, deadline: Deadline(secondsFromNow: 5)) == 1)
        let forger = try DBusConnection(address: bus.address, timeout: 5)

        // The stand-in answers GetDefaultDevice only once the forger's reply, with the same
        // serial and another reader, has reached the caller first.
        let served = BackgroundResult { () -> String in
            do {
                while true {
                    let (call, _) = try fprintd.nextMessage(deadline: Deadline(secondsFromNow: 20), isCancelled: { false })
                    guard call.kind == .methodCall, call.member == "GetDefaultDevice", let caller = call.sender else { continue }
                    try forger.send(DBusMessage(kind: .methodReturn, replySerial: call.serial, destination: caller,
                                                body: [.objectPath("/forged/reader")]), deadline: Deadline(secondsFromNow: 5))
                    // A round trip to the bus after the send: the bus has routed the forgery by then.
                    try forger.call(.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                          interface: "org.freedesktop.DBus.Peer", member: "Ping"), deadline: Deadline(secondsFromNow: 5))
                    try fprintd.reply(to: call, body: [.objectPath(Self.realReader)], deadline: Deadline(secondsFromNow: 5))
                    return "answered \(caller)"
                }
            } catch {
                return "\(error)"
            }
        }

        let session = try FprintSession(busAddress: bus.address, callTimeout: 10)
        #expect(served.value().hasPrefix("answered :"), "\(served.value())")
        #expect(session.devicePath == Self.realReader)
        #expect(session.serviceOwner == fprintd.uniqueName)
    }

    @Test("without fprintd on the bus (nothing owns its name, nothing can start it): ServiceUnknown, not a timeout")
    func noFprintd() throws {
        let bus = try PrivateBus()
        #expect {
            try FprintSession(busAddress: bus.address, callTimeout: 10)
        } throws: { error in
            guard case DBusFailure.remote(let name, _) = error else { return false }
            return name == "org.freedesktop.DBus.Error.ServiceUnknown"
        }
    }
}

/// `body` run on a thread of its own; `value()` waits for its result.
private final class BackgroundResult<T: Sendable>: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var result: T?

    init(_ body: @escaping @Sendable () -> T) {
        Thread { [self] in
            result = body()
            done.signal()
        }.start()
    }

    func value() -> T {
        done.wait()
        done.signal()  // later calls return at once
        return result!
    }
}
