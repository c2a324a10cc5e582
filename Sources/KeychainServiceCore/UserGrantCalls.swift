#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainEngine
import KeychainPrimitives
import KeychainServiceWire
import KeychainServiceWireDictionaries
import KeychainVocabulary

/// `keychainctl app grant|revoke|list` in the service: a user grants a program (an executable or a
/// script, optionally pinned to its SHA-256) access groups or an application identifier in their
/// own keychain, proved with the keychain password, which the service verifies itself. The
/// grants are the user's alone: kept under the caller's uid (from the kernel), applied to that
/// uid's calls only, never able to name `*`; the machine owner's root-owned grants stay as they are.
struct UserGrantCalls {
    let userGrants: UserGrants
    let proofs: PasswordProof

    /// The reply to a grant, revoke or list call from `peer`.
    func reply(to request: ServiceRequest, from peer: PeerIdentity) -> ServiceReply {
        let fields = WireEntry.dictionary(request.query)
        var password = fields[UserGrantRequest.passwordKey] as? Data ?? Data()
        defer { password.resetBytes(in: 0..<password.count) }
        do throws(KeychainStoreError) {
            switch request.operation {
            case .grantApplication:
                let grant = try Self.grant(from: fields)
                try proofs.verify(password, uid: peer.uid)
                try record(grant, for: peer.uid)
                return ServiceReply(status: 0)
            case .revokeApplication:
                let executable = fields[UserGrantRequest.executableKey] as? String ?? ""
                try proofs.verify(password, uid: peer.uid)
                let removed: Int
                do { removed = try userGrants.revoke(executablePath: executable, for: peer.uid) } catch {
                    throw KeychainStoreError(.io(error.description))
                }
                guard removed > 0 else {
                    return ServiceReply(status: KeychainStatus.itemNotFound.rawValue, failureReason: "you have granted nothing to \(executable)")
                }
                return ServiceReply(status: 0)
            case .listApplicationGrants:
                let grants: [ApplicationGrant]
                do { grants = try userGrants.grants(of: peer.uid) } catch { throw KeychainStoreError(.io(error.description)) }
                return ServiceReply(status: 0, result: .array(grants.map(Self.wireValue)))
            default:
                return ServiceReply(status: KeychainStatus.param.rawValue, failureReason: "not a grant call")
            }
        } catch {
            return ServiceReply(status: error.osStatus, failureReason: Self.reason(error))
        }
    }

    /// Stores `grant` for `uid`; a failure to store is reported, never taken for success.
    func record(_ grant: ApplicationGrant, for uid: UInt32) throws(KeychainStoreError) {
        do { try userGrants.add(grant, for: uid) } catch { throw KeychainStoreError(.io(error.description)) }
    }

    /// The grant a request describes, checked as a grant file is: an absolute path, 64 hex
    /// digits for a digest, something granted, and never the group `*`.
    static func grant(from fields: [String: Any]) throws(KeychainStoreError) -> ApplicationGrant {
        let executable = fields[UserGrantRequest.executableKey] as? String ?? ""
        guard executable.hasPrefix("/") else {
            throw .invalidParameter("a grant names the program by its absolute path (for a script: the script's), not \(executable)")
        }
        let digest = (fields[UserGrantRequest.sha256Key] as? String)?.lowercased()
        if let digest, digest.count != 64 || !digest.allSatisfy(\.isHexDigit) {
            throw .invalidParameter("--sha256 must be 64 hex digits")
        }
        let groups = (fields[UserGrantRequest.accessGroupsKey] as? [Any] ?? []).compactMap { $0 as? String }
            .map { $0.trimmingWhitespace() }.filter { !$0.isEmpty }
        let identifier = (fields[UserGrantRequest.applicationIdentifierKey] as? String).flatMap { $0.isEmpty ? nil : $0 }
        if groups.contains("*") || identifier == "*" { throw .invalidParameter("the access group * (every group) cannot be granted") }
        guard !groups.isEmpty || identifier != nil else {
            throw .invalidParameter("a grant needs an access group (--access-group) or an application identifier (--application-identifier)")
        }
        return ApplicationGrant(executablePath: executable, sha256: digest, applicationIdentifier: identifier, accessGroups: groups)
    }

    /// A grant as `app list` receives it.
    static func wireValue(_ grant: ApplicationGrant) -> WireValue {
        var entries = [WireEntry(key: UserGrantRequest.executableKey, value: .string(grant.executablePath)),
                       WireEntry(key: UserGrantRequest.accessGroupsKey, value: .array(grant.accessGroups.map(WireValue.string)))]
        if let sha256 = grant.sha256 { entries.append(WireEntry(key: UserGrantRequest.sha256Key, value: .string(sha256))) }
        if let identifier = grant.applicationIdentifier {
            entries.append(WireEntry(key: UserGrantRequest.applicationIdentifierKey, value: .string(identifier)))
        }
        return .dictionary(entries)
    }

    private static func reason(_ failure: KeychainStoreError) -> String {
        if case .notAvailable(let what) = failure.reason { return what }
        return failure.description
    }
}
