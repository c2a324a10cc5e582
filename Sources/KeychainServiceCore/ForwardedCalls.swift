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
import KeychainEngine
import KeychainServiceWire
import KeychainVocabulary

/// The SecItem calls the Secret Service provider forwards for the D-Bus clients it serves
/// (``ServiceRequest/Operation/forwardedAdd`` and the three others), turned into the client's own
/// call — or refused.
///
/// The provider's word is not taken for anything:
/// - only the installed provider may forward: a verified peer (a program its user cannot change,
///   running no code the user chose, not traced) that runs the service's own executable (the
///   installed keychainctl, the same file or the same path); a copy elsewhere, a script or a
///   traced provider is refused with `errSecMissingEntitlement`;
/// - the provider names the client's pid and start time (from the bus's
///   `GetConnectionCredentials` and `/proc`); the service opens that process itself, refuses it
///   unless it belongs to the provider's uid and started at that time (a reused pid), and reads
///   its identity from `/proc` as it reads a connecting peer's.
///
/// What a forwarded call can reach is fixed here too: the Secret Service's access group
/// (``ServiceRequest/secretServiceAccessGroup``), whatever the client or the provider claims.
struct ForwardedCalls: Sendable {
    /// A forwarded call made plain: the SecItem call, the client it is made for and the provider.
    struct Forwarded {
        /// The client's SecItem call (its operation plain, the forwarding entries removed).
        var request: ServiceRequest
        /// The D-Bus client, identified by the service.
        var client: PeerIdentity
        /// The provider that forwarded it.
        var provider: PeerIdentity
    }

    /// Why a forwarded call is refused: the reply the provider gets.
    struct Refusal: Error {
        var reply: ServiceReply
    }

    /// The service's own executable: what a provider must run.
    private let ownExecutable: (device: UInt64, inode: UInt64, path: String)?
    private let hashes: ExecutableHashCache

    /// Forwarded calls checked against the executable this process runs (`/proc/self/exe`).
    init(hashes: ExecutableHashCache) {
        self.hashes = hashes
        var info = stat()
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        if stat("/proc/self/exe", &info) == 0, length > 0 {
            let path = String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            ownExecutable = (UInt64(info.st_dev), UInt64(info.st_ino), path)
        } else {
            ownExecutable = nil
        }
    }

    /// `request` from `provider` as the client's own SecItem call, or the refusal.
    func unwrap(_ request: ServiceRequest, from provider: PeerIdentity) -> Result<Forwarded, Refusal> {
        guard let operation = request.operation.forwardedItemOperation else {
            return .failure(Self.refusal(.param, "not a forwarded call"))
        }
        if let reason = refusalOfProvider(provider) {
            return .failure(Self.refusal(.missingEntitlement, reason))
        }
        guard request.claimedApplicationIdentifier == nil, request.claimedAccessGroups.isEmpty else {
            return .failure(Self.refusal(.missingEntitlement, "a forwarded call runs in \(ServiceRequest.secretServiceAccessGroup) "
                                         + "and claims no application identifier or access group"))
        }
        var pid: Int32 = 0
        var startTime: UInt64 = 0
        var query: [WireEntry] = []
        for entry in request.query {
            switch (entry.key, entry.value) {
            case (ServiceRequest.forwardedProcessKey, .integer(let value)): pid = Int32(clamping: value)
            case (ServiceRequest.forwardedStartTimeKey, .integer(let value)): startTime = UInt64(clamping: value)
            default: query.append(entry)
            }
        }
        let client: PeerIdentity
        if pid == provider.pid {
            // The provider's own call (its per-application access records, a call a prompt finished).
            client = provider
        } else {
            do {
                client = try PeerIdentification.identifyForwarded(pid: pid, startTime: startTime, provider: provider, hashes: hashes)
            } catch {
                return .failure(Self.refusal(.missingEntitlement, "the client this call was forwarded for cannot be identified: \(error)"))
            }
        }
        let plain = ServiceRequest(operation: operation, claimedApplicationIdentifier: nil, claimedAccessGroups: [],
                                   query: query, changes: request.changes)
        return .success(Forwarded(request: plain, client: client, provider: provider))
    }

    /// `client` identified again for `provider`, as it is now: refused when it exited, its pid
    /// names another process, or it runs another program (a call the user allowed for it is then
    /// not carried out).
    func reidentify(_ client: PeerIdentity, provider: PeerIdentity) -> Result<PeerIdentity, Refusal> {
        if client.pid == provider.pid { return .success(provider) }
        do {
            let now = try PeerIdentification.identifyForwarded(pid: client.pid, startTime: client.startTime, provider: provider, hashes: hashes)
            guard now.device == client.device, now.inode == client.inode, now.executablePath == client.executablePath else {
                return .failure(Self.refusal(.missingEntitlement, "the D-Bus client (pid \(client.pid)) runs another program since it asked: nothing was done"))
            }
            return .success(now)
        } catch {
            return .failure(Self.refusal(.missingEntitlement, "the D-Bus client (pid \(client.pid)) is gone since it asked, so nothing was done: \(error)"))
        }
    }

    /// Why `provider` may not forward calls; nil when it may.
    private func refusalOfProvider(_ provider: PeerIdentity) -> String? {
        let installed = ownExecutable?.path ?? "the installed keychainctl"
        guard provider.isVerified, provider.interpreterPath == nil else {
            return "only the installed Secret Service provider (\(installed)) forwards calls for D-Bus clients; "
                + "\(provider.executablePath) cannot be verified (a program its user can change, code the user chose, or traced)"
        }
        guard let ownExecutable,
              (provider.device == ownExecutable.device && provider.inode == ownExecutable.inode) || provider.executablePath == ownExecutable.path else {
            return "only the installed Secret Service provider (\(installed)) forwards calls for D-Bus clients, not \(provider.executablePath)"
        }
        return nil
    }

    private static func refusal(_ status: KeychainStatus, _ reason: String) -> Refusal {
        Refusal(reply: ServiceReply(status: status.rawValue, failureReason: reason))
    }
}
