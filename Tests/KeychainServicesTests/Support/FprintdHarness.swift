import Foundation
@testable import KeychainEngine
@testable import KeychainLinux
import PrivateBusSupport
import RequiredToolSupport
#if canImport(Glibc)
import Glibc
#endif

/// A real fprintd on a private D-Bus bus (a `PrivateBus`, the daemons' system bus), with
/// libfprint's virtual fingerprint reader (`FP_VIRTUAL_DEVICE`: a socket that takes commands such
/// as `SCAN <print id>`), as fprintd's own test suite runs it. fprintd asks polkit before every
/// device call; the polkit stand-in is python-dbusmock's `polkitd` template (also what fprintd's
/// tests use), allowing the verify and enroll actions. The daemons' files live in a fresh
/// temporary directory; every daemon and the bus are SIGKILLed and the directories removed when
/// the harness is released.
final class FprintdHarness: @unchecked Sendable {
    static let fprintd = "/usr/libexec/fprintd"
    static let python = "/usr/bin/python3"

    /// What the harness runs, each with the Debian package that installs it.
    static let requiredTools: [RequiredTool] = [.fprintd, .dbusDaemon, .python3, .dbusmock]

    /// Whether the Debian packages the harness needs are installed.
    static var isAvailable: Bool { requiredTools.allSatisfy(\.isInstalled) }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    let directory: String
    private let bus: PrivateBus
    var busAddress: String { bus.address }
    private let virtualDeviceSocket: String
    private var daemons: [BackgroundProcess] = []

    /// The configuration that points KeychainKit at this fprintd, with short timeouts.
    var configuration: BiometryConfiguration {
        BiometryConfiguration(busAddress: busAddress, callTimeout: 5, verifyTimeout: 20, attempts: 3)
    }

    /// Whether fprintd was given the virtual reader.
    let hasReader: Bool

    /// Starts the bus, the polkit stand-in and fprintd, and waits until fprintd offers the
    /// virtual reader — or, without `reader`, until fprintd answers with no reader at all.
    /// Anything started is stopped again if a later step fails.
    init(reader: Bool = true) throws {
        hasReader = reader
        bus = try PrivateBus()
        var template = Array("/tmp/kk-fprint-XXXXXX".utf8CString)
        guard let created = mkdtemp(&template) else { throw Failure(description: "mkdtemp failed") }
        directory = String(cString: created)
        virtualDeviceSocket = "\(directory)/virtual-device"
        do {
            try start()
        } catch {
            let logs = (["--- dbus-daemon\n\(bus.log)"] + daemons.map { "--- \($0.name)\n\($0.log)" }).joined(separator: "\n")
            shutDown()
            throw Failure(description: "\(error)\n\(logs)")
        }
    }

    deinit {
        shutDown()
    }

    private func shutDown() {
        for daemon in daemons.reversed() { daemon.kill() }
        daemons.removeAll()
        bus.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func start() throws {
        for name in ["state", "run"] {
            try FileManager.default.createDirectory(atPath: "\(directory)/\(name)", withIntermediateDirectories: false)
        }
        var environment = ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "DBUS_SYSTEM_BUS_ADDRESS": busAddress,
                           "HOME": directory]
        let connection = try DBusConnection(address: busAddress, timeout: 5)

        daemons.append(try BackgroundProcess(name: "polkitd (dbusmock)",
                                             arguments: [Self.python, "-m", "dbusmock", "--system", "--template", "polkitd"],
                                             environment: environment, logPath: "\(directory)/polkit.log"))
        let allowed: DBusValue = .array(elementSignature: "s", [.string("net.reactivated.fprint.device.verify"),
                                                                 .string("net.reactivated.fprint.device.enroll")])
        try waitFor("the polkit stand-in") {
            try connection.call(.call(destination: "org.freedesktop.PolicyKit1", path: "/org/freedesktop/PolicyKit1/Authority",
                                      interface: "org.freedesktop.DBus.Mock", member: "SetAllowed", body: [allowed]),
                                deadline: Deadline(secondsFromNow: 2))
        }

        // Only libfprint's virtual driver may load; without its socket variable it offers no reader.
        environment["FP_DRIVERS_WHITELIST"] = "virtual_device"
        environment["FP_DRIVERS_ALLOWLIST"] = "virtual_device"
        if hasReader { environment["FP_VIRTUAL_DEVICE"] = virtualDeviceSocket }
        environment["STATE_DIRECTORY"] = "\(directory)/state"
        environment["RUNTIME_DIRECTORY"] = "\(directory)/run"
        daemons.append(try BackgroundProcess(name: "fprintd", arguments: [Self.fprintd, "--no-timeout"],
                                             environment: environment, logPath: "\(directory)/fprintd.log"))
        guard hasReader else {
            let devices = try waitFor("fprintd") {
                try connection.call(.call(destination: "net.reactivated.Fprint", path: "/net/reactivated/Fprint/Manager",
                                          interface: "net.reactivated.Fprint.Manager", member: "GetDevices"),
                                    deadline: Deadline(secondsFromNow: 2))
            }
            guard case .array(_, let paths)? = devices.first, paths.isEmpty else {
                throw Failure(description: "fprintd offers a reader though none was configured")
            }
            return
        }
        let session = try waitFor("fprintd and its virtual reader") { try FprintSession(busAddress: busAddress, callTimeout: 2) }
        guard try session.deviceName() == "Virtual device for debugging" else {
            throw Failure(description: "fprintd's default reader is not the virtual one")
        }
    }

    /// Retries `body` for up to 15 seconds, while the daemons start.
    @discardableResult
    private func waitFor<T>(_ what: String, _ body: () throws -> T) throws -> T {
        let deadline = Date().addingTimeInterval(15)
        while true {
            do {
                return try body()
            } catch {
                if !bus.isRunning { throw Failure(description: "dbus-daemon exited while waiting for \(what)") }
                if let dead = daemons.first(where: { !$0.isRunning }) {
                    throw Failure(description: "\(dead.name) exited while waiting for \(what)")
                }
                if Date() > deadline { throw Failure(description: "timed out waiting for \(what): \(error)") }
                usleep(50_000)
            }
        }
    }

    /// Enrolls `finger` (fprintd's name, such as "right-index-finger") for this user with the
    /// virtual print `printID`, through fprintd's enrollment API on a connection of its own.
    func enroll(finger: String, print printID: String) throws {
        let connection = try DBusConnection(address: busAddress, timeout: 5)
        let device = try FprintSession(busAddress: busAddress, callTimeout: 5).devicePath
        func call(_ member: String, _ body: [DBusValue] = []) throws {
            try connection.call(.call(destination: "net.reactivated.Fprint", path: device, interface: "net.reactivated.Fprint.Device",
                                      member: member, body: body), deadline: Deadline(secondsFromNow: 5))
        }
        try connection.addMatch("type='signal',interface='net.reactivated.Fprint.Device',member='EnrollStatus'",
                                deadline: Deadline(secondsFromNow: 5))
        try call("Claim", [.string("")])
        defer { _ = try? call("Release") }  // Best effort: closing the connection releases it too.
        _ = try sendCommand("SET_ENROLL_STAGES 2")
        try call("EnrollStart", [.string(finger)])
        var result = ""
        for _ in 0..<2 {
            _ = try sendCommand("SCAN \(printID)")
            let signal = try connection.nextSignal(deadline: Deadline(secondsFromNow: 10), isCancelled: { false }) { $0.member == "EnrollStatus" }
            result = signal.body.first?.text ?? ""
            guard result == "enroll-stage-passed" || result == "enroll-completed" else { break }
            if result == "enroll-completed" { break }
        }
        try call("EnrollStop")
        guard result == "enroll-completed" else { throw Failure(description: "enrollment ended with \(result)") }
    }

    /// Plays a local attacker on the same bus: from a connection of its own (not fprintd), sends
    /// fprintd's "finger matched" signal, `VerifyStatus("verify-match", true)` on the reader's path,
    /// addressed to every other client on the bus (a unicast signal reaches its destination
    /// whatever that destination's match rules say) and once more as a broadcast. Returns after the
    /// bus has routed them all (a round trip on the same connection follows them).
    func forgeVerifyMatch() throws {
        let forger = try DBusConnection(address: busAddress, timeout: 5)
        let device = try FprintSession(busAddress: busAddress, callTimeout: 5).devicePath
        let names = try forger.call(.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                          interface: "org.freedesktop.DBus", member: "ListNames"),
                                    deadline: Deadline(secondsFromNow: 5))
        let clients = (names.first?.texts ?? []).filter { $0.hasPrefix(":") && $0 != forger.uniqueName }
        for destination in clients + [nil] {
            var signal = DBusMessage(kind: .signal, path: device, interface: "net.reactivated.Fprint.Device",
                                     member: "VerifyStatus", destination: destination)
            signal.body = [.string("verify-match"), .boolean(true)]
            try forger.send(signal, deadline: Deadline(secondsFromNow: 5))
        }
        // The bus handles one connection's messages in order: once this reply is back, every
        // forged signal above is already in its recipient's queue.
        try forger.call(.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                              interface: "org.freedesktop.DBus.Peer", member: "Ping"), deadline: Deadline(secondsFromNow: 5))
    }

    // MARK: Fingers in step with verifications

    /// Presents `prints`, in order, to the next verification, so that each of its attempts finds
    /// its finger on the reader. Fingers sent to libfprint's virtual reader as soon as its socket
    /// appeared (the reader opening) were now and then not seen by the verification on a loaded
    /// machine — one read in 30 in a loaded measurement, and more often with two CI runs at
    /// once — and the read then waited out its whole timeout instead of ending on its fingers.
    ///
    /// The order is made, not hoped for: fprintd asks polkit before every device call, and the
    /// polkit stand-in holds every answer while this runs (python-dbusmock's `SimulateHang`, as
    /// fprintd's own tests order their steps). Held answers are let through one at a time. The
    /// first one held while the reader is open follows the claim's reply (the reader opens only
    /// after the claim's answer was let through, and the client asks again only once the claim
    /// returned), so the reader is open and idle then: every print is queued before that answer
    /// is let through, and the verification finds its fingers already there. With `whenVerifying`,
    /// that answer is let through first, `whenVerifying` runs (the verification is under way),
    /// and only then are the prints queued. Extra prints are consumed only by further attempts;
    /// the reader drops one left over when it closes. Returns once the reader is closed again;
    /// throws if no verification happened within `seconds`. Call ``holdAuthorizations()`` first,
    /// before the call that verifies starts.
    func presentToNextVerification(_ prints: [String], waitingUpTo seconds: Double = 15,
                                   whenVerifying: (() throws -> Void)? = nil) throws {
        defer {
            // Best effort: a polkit stand-in that stopped answering fails the next call anyway.
            _ = try? polkitMock("SimulateHang", [.boolean(false)])
            _ = try? polkitMock("ReleaseHangingCalls")
        }
        let deadline = Date().addingTimeInterval(seconds)
        var queued = false
        while true {
            // A held answer first, then the reader's state (see above for why in this order).
            if try polkitMock("HaveHangingCalls").first?.bool == true {
                if !queued, try attemptCommand("LIST") != nil {
                    if let whenVerifying {
                        try polkitMock("ReleaseHangingCalls")
                        try whenVerifying()
                    }
                    for print in prints { _ = try sendCommand("SCAN \(print)") }
                    queued = true
                }
                try polkitMock("ReleaseHangingCalls")
            } else if queued, try attemptCommand("LIST") == nil {
                return  // the verification ended and the reader was released
            }
            if Date() > deadline {
                throw Failure(description: queued ? "the reader was not released after the verification" : "no verification opened the reader")
            }
            usleep(5_000)
        }
    }

    /// Makes the polkit stand-in hold every authorization fprintd asks for, until
    /// ``presentToNextVerification(_:waitingUpTo:)`` or ``releaseAuthorizations()`` lets them
    /// through (and stops holding). fprintd asks before listing the enrolled fingers too, so
    /// while they are held fprintd is a service that answers late.
    func holdAuthorizations() throws {
        try polkitMock("SimulateHang", [.boolean(true)])
    }

    /// Stops holding authorizations and lets the held ones through.
    func releaseAuthorizations() throws {
        try polkitMock("SimulateHang", [.boolean(false)])
        try polkitMock("ReleaseHangingCalls")
    }

    /// Waits until fprintd asked for an authorization the polkit stand-in holds: a client's
    /// call is waiting for fprintd's answer.
    func waitUntilAuthorizationHeld(waitingUpTo seconds: Double = 15) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while try polkitMock("HaveHangingCalls").first?.bool != true {
            if Date() > deadline { throw Failure(description: "no authorization was asked for") }
            usleep(5_000)
        }
    }

    /// Plays a local attacker answering in fprintd's place: from a connection of its own, sends
    /// every client on the bus but fprintd and the polkit stand-in method returns for its first
    /// 64 call serials saying the enrolled fingers are `fingers` (the answer to
    /// `ListEnrolledFingers`), then fprintd's forged "finger matched" signal
    /// (``forgeVerifyMatch()``). Returns once the bus has routed them all.
    func forgeEnrolledFingers(_ fingers: [String]) throws {
        let forger = try DBusConnection(address: busAddress, timeout: 5)
        let bus = DBusMessage.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                   interface: "org.freedesktop.DBus", member: "ListNames")
        let names = try forger.call(bus, deadline: Deadline(secondsFromNow: 5))
        var daemons: Set<String> = [forger.uniqueName]
        for service in ["net.reactivated.Fprint", "org.freedesktop.PolicyKit1"] {
            let owner = try forger.call(.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                              interface: "org.freedesktop.DBus", member: "GetNameOwner", body: [.string(service)]),
                                        deadline: Deadline(secondsFromNow: 5))
            if let name = owner.first?.text { daemons.insert(name) }
        }
        let clients = (names.first?.texts ?? []).filter { $0.hasPrefix(":") && !daemons.contains($0) }
        let answer: DBusValue = .array(elementSignature: "s", fingers.map { .string($0) })
        for destination in clients {
            for serial in UInt32(1)...64 {
                let reply = DBusMessage(kind: .methodReturn, replySerial: serial, destination: destination, body: [answer])
                try forger.send(reply, deadline: Deadline(secondsFromNow: 5))
            }
        }
        try forger.call(.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                              interface: "org.freedesktop.DBus.Peer", member: "Ping"), deadline: Deadline(secondsFromNow: 5))
        try forgeVerifyMatch()
    }

    /// Calls one of python-dbusmock's control methods on the polkit stand-in.
    @discardableResult
    private func polkitMock(_ member: String, _ body: [DBusValue] = []) throws -> [DBusValue] {
        let connection = try DBusConnection(address: busAddress, timeout: 5)
        return try connection.call(.call(destination: "org.freedesktop.PolicyKit1", path: "/org/freedesktop/PolicyKit1/Authority",
                                         interface: "org.freedesktop.DBus.Mock", member: member, body: body),
                                   deadline: Deadline(secondsFromNow: 5))
    }

    /// Waits until the reader is open, that is claimed by someone.
    func waitUntilClaimed() throws {
        _ = try sendCommand("LIST", waitingUpTo: 15)
    }

    /// Sends one command to the virtual reader's socket, retrying while nobody listens (the socket
    /// exists only while the reader is open), and returns its answer.
    func sendCommand(_ command: String, waitingUpTo seconds: Double = 5) throws -> String {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            if let answer = try attemptCommand(command) { return answer }
            if Date() > deadline { throw Failure(description: "the virtual reader did not take \(command)") }
            usleep(20_000)
        }
    }

    private func attemptCommand(_ command: String) throws -> String? {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(description: "socket failed") }
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in virtualDeviceSocket.utf8.enumerated() { buffer[index] = byte }
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else { return nil }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let bytes = Array(command.utf8)
        guard send(descriptor, bytes, bytes.count, Int32(MSG_NOSIGNAL)) == bytes.count else { return nil }
        shutdown(descriptor, Int32(SHUT_WR))
        var answer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1024)
        while true {
            let count = recv(descriptor, &chunk, chunk.count, 0)
            if count <= 0 { break }
            answer += chunk[0..<count]
        }
        return String(decoding: answer, as: UTF8.self)
    }
}
