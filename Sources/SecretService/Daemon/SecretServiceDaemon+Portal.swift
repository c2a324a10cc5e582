#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import KeychainAudit
import KeychainLinux

/// `org.freedesktop.impl.portal.Secret` on `/org/freedesktop/portal/desktop`: the backend of the
/// XDG secret portal, which `xdg-desktop-portal` calls for sandboxed (Flatpak) applications.
///
/// `RetrieveSecret(o handle, s app_id, h fd, a{sv} options) → (u response, a{sv} results)` writes
/// the application's own secret (64 random bytes, made on its first call and kept as an item of
/// the `default` collection with the attributes `xdg:schema` = ``portalSchema`` and `app_id`) to
/// `fd`; the application derives the key of its own encrypted store from it (libsecret does). The
/// same app id always gets the same secret, another app id another one.
///
/// Every read and creation goes through per-application access like any other (the caller is
/// `xdg-desktop-portal`, which the first call puts on the item's list), and is recorded.
extension SecretServiceDaemon {
    /// The portal backend's interface.
    static let portalInterface = "org.freedesktop.impl.portal.Secret"
    /// Where `xdg-desktop-portal` calls every portal backend.
    static let portalPath = "/org/freedesktop/portal/desktop"
    /// The `xdg:schema` attribute of the items holding applications' portal secrets.
    static let portalSchema = "org.freedesktop.impl.portal.Secret"
    /// The length of an application's secret (oo7 and gnome-keyring give 64 bytes too).
    static let portalSecretLength = 64
    /// The most entries an `options` dictionary may hold: the interface defines one (`token`).
    static let portalOptionsLimit = 16
    /// The version of `org.freedesktop.impl.portal.Secret` served.
    static let portalVersion: UInt32 = 1
    /// How long writing the secret to the caller's descriptor may wait for room.
    static let portalWriteTimeoutMilliseconds: Int32 = 5000

    /// Answers a call on the portal object.
    func handlePortal(_ member: String, interface: String?, _ arguments: DBusArguments, call: DBusMessage) throws(DBusError) -> [DBusValue]? {
        guard interface == nil || interface == Self.portalInterface else {
            throw .unknownMethod("\(Self.portalPath) has no interface \(interface ?? "")")
        }
        guard member == "RetrieveSecret" else { throw .unknownMethod("\(Self.portalInterface) has no method \(member)") }
        try arguments.require("osha{sv}")
        let appID = try arguments.string(1)
        guard !appID.isEmpty else {
            throw .invalidArgs("RetrieveSecret needs the application's id (app_id); xdg-desktop-portal passes the id of the sandboxed application")
        }
        guard appID.utf8.count <= 255 else { throw .invalidArgs("an app_id is at most 255 bytes (a D-Bus name)") }
        guard case .unixFileDescriptor(let index) = arguments.values[2] else { throw .invalidArgs("argument 3 must be of type h") }
        guard case .array(_, let options) = arguments.values[3], options.count <= Self.portalOptionsLimit else {
            throw .limitsExceeded("the options hold more than \(Self.portalOptionsLimit) entries; RetrieveSecret defines one (token)")
        }
        guard let descriptors = call.fileDescriptors, let descriptor = descriptors.descriptor(at: index) else {
            throw .invalidArgs("the call carries no file descriptor at index \(index) (the connection may not pass descriptors)")
        }
        try Self.requireWritable(descriptor)

        let collection = try portalCollection()
        let attributes = ["xdg:schema": Self.portalSchema, "app_id": appID]
        let caller = try caller(call.sender ?? "")
        let found = try backend.searchItems(attributes)
        guard found.locked.isEmpty else {
            throw .isLocked("the collection holding the secret of \(appID) is locked: unlock it (secret-tool unlock, or log in) and try again")
        }
        if let existing = found.unlocked.sorted(by: { ($0.collection, $0.item) < ($1.collection, $1.item) }).first {
            return try authorize([ItemAccess(address: existing, operation: .read)], caller: caller, call: call) { [self] (grant) throws(DBusError) in
                guard grant.allows(existing) else { throw .isLocked("the collection is locked") }
                let secret = try readSecret(of: existing, grant)
                try Self.write(secret.value, to: descriptors, index: index)
                return Self.portalSuccess
            }
        }

        var generator = SystemRandomNumberGenerator()
        let secret = Data((0..<Self.portalSecretLength).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
        let address = try backend.createItem(in: collection, label: "Application key for \(appID) (XDG secret portal)",
                                             attributes: attributes, secret: SecretPayload(value: secret, contentType: "application/octet-stream"),
                                             replace: false)
        do throws(DBusError) {
            try recordCreator(caller, of: address)
            try record(ItemAccess(address: address, operation: .create), .trusted, caller: caller)
        } catch {
            // Not recorded, so not kept: nothing reaches the keychain unlogged.
            do { try backend.deleteItem(address) } catch let removal {
                report("a new portal secret \(Self.path(of: address)) was not recorded and could not be removed: \(removal.message)")
            }
            throw error
        }
        // A write that fails keeps the item: the secret was never handed out, and the next call
        // hands out this one, so an application never gets two different secrets.
        try Self.write(secret, to: descriptors, index: index)
        emit(Self.collectionInterface, "ItemCreated", from: SecretObjectPath.collection(collection).path, [.objectPath(Self.path(of: address))])
        return Self.portalSuccess
    }

    /// The reply of a successful `RetrieveSecret`: response 0, no results.
    private static var portalSuccess: [DBusValue] { [.uint32(0), .array(elementSignature: "{sv}", [])] }

    /// The properties of the portal object (`version`).
    func portalProperties(interface: String) throws(DBusError) -> [String: DBusValue] {
        guard interface.isEmpty || interface == Self.portalInterface else { throw .invalidArgs("no interface \(interface) at \(Self.portalPath)") }
        return ["version": .uint32(Self.portalVersion)]
    }

    /// The collection new portal secrets go to: the `default` alias's, unlocked without a prompt
    /// when it can be (`IsLocked` otherwise, saying how to unlock it).
    private func portalCollection() throws(DBusError) -> String {
        guard let name = try backend.readAlias("default") else {
            throw .noSuchObject("no collection is the default one; create one (secret-tool store creates the login collection) and try again")
        }
        if try backend.collection(name).locked, !(try backend.unlockWithoutPrompt(name)) {
            throw .isLocked("the default collection is locked: unlock it (secret-tool unlock, or log in) and try again")
        }
        return name
    }

    /// Refuses a descriptor this provider cannot write the secret to: closed, or open read-only.
    private static func requireWritable(_ descriptor: Int32) throws(DBusError) {
        let flags = fcntl(descriptor, F_GETFL)
        guard flags >= 0 else { throw .invalidArgs("the file descriptor passed is not open") }
        let mode = flags & O_ACCMODE
        guard mode == O_WRONLY || mode == O_RDWR else {
            throw .invalidArgs("the file descriptor passed is open read-only; pass one the secret can be written to (the write end of a pipe)")
        }
    }

    /// Writes `secret` whole to the caller's descriptor, waiting at most
    /// ``portalWriteTimeoutMilliseconds`` for room: a reader that is gone (`EPIPE`: SIGPIPE is
    /// blocked for the write) or never reads is an error, never a hang or a crash.
    private static func write(_ secret: Data, to descriptors: DBusFileDescriptors, index: UInt32) throws(DBusError) {
        guard let descriptor = descriptors.descriptor(at: index) else { throw .invalidArgs("no file descriptor at index \(index)") }
        let problem: String? = PipeSignalGuard.withSIGPIPEBlocked {
            var written = 0
            while written < secret.count {
                var entry = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                let ready = poll(&entry, 1, portalWriteTimeoutMilliseconds)
                if ready < 0 && errno == EINTR { continue }
                guard ready > 0 else { return "nobody read the secret from the file descriptor in time" }
                let count = secret[secret.startIndex + written ..< secret.endIndex].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
                if count > 0 { written += count; continue }
                if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
                return count < 0 && errno == EPIPE ? "the reading end of the file descriptor is closed"
                    : "the secret could not be written to the file descriptor (\(String(cString: strerror(errno))))"
            }
            return nil
        }
        if let problem { throw .invalidArgs(problem + "; nothing was handed out") }
    }
}
