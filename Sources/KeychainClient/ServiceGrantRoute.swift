#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainEngine
import KeychainServiceWire
import KeychainServiceWireDictionaries
import KeychainVocabulary

/// The user's own grants in the keychain service (`keychainctl app grant|revoke|list`): sent to the
/// service, which verifies the keychain password itself and keeps the grants where the user's
/// programs cannot write them. There is no embedded counterpart: in the embedded mode every
/// program of the user can claim any group, so a grant would protect nothing.
package enum ServiceGrantRoute {
    /// One of the user's grants.
    package struct Grant: Equatable, Sendable {
        /// The program's executable (or script) path.
        package var executablePath: String
        /// Its pinned SHA-256, or nil for any content at that path.
        package var sha256: String?
        /// The application identifier granted, or nil.
        package var applicationIdentifier: String?
        /// The access groups granted.
        package var accessGroups: [String]

        /// A grant.
        package init(executablePath: String, sha256: String?, applicationIdentifier: String?, accessGroups: [String]) {
            self.executablePath = executablePath
            self.sha256 = sha256
            self.applicationIdentifier = applicationIdentifier
            self.accessGroups = accessGroups
        }
    }

    /// Records `grant`, proved with `password`.
    package static func grant(_ grant: Grant, password: Data) throws(KeychainCallFailure) {
        var entries = [WireEntry(key: UserGrantRequest.passwordKey, value: .data(password)),
                       WireEntry(key: UserGrantRequest.executableKey, value: .string(grant.executablePath)),
                       WireEntry(key: UserGrantRequest.accessGroupsKey, value: .array(grant.accessGroups.map(WireValue.string)))]
        if let sha256 = grant.sha256 { entries.append(WireEntry(key: UserGrantRequest.sha256Key, value: .string(sha256))) }
        if let identifier = grant.applicationIdentifier {
            entries.append(WireEntry(key: UserGrantRequest.applicationIdentifierKey, value: .string(identifier)))
        }
        _ = try call(.grantApplication, entries)
    }

    /// Removes the user's grants to `executablePath`, proved with `password`.
    package static func revoke(executablePath: String, password: Data) throws(KeychainCallFailure) {
        _ = try call(.revokeApplication, [WireEntry(key: UserGrantRequest.passwordKey, value: .data(password)),
                                          WireEntry(key: UserGrantRequest.executableKey, value: .string(executablePath))])
    }

    /// The user's grants, in the order made.
    package static func list() throws(KeychainCallFailure) -> [Grant] {
        let reply = try call(.listApplicationGrants, [])
        guard case .array(let values)? = reply.result else { return [] }
        return values.compactMap { value -> Grant? in
            guard case .dictionary(let entries) = value else { return nil }
            let fields = WireEntry.dictionary(entries)
            guard let executable = fields[UserGrantRequest.executableKey] as? String else { return nil }
            return Grant(executablePath: executable, sha256: fields[UserGrantRequest.sha256Key] as? String,
                         applicationIdentifier: fields[UserGrantRequest.applicationIdentifierKey] as? String,
                         accessGroups: (fields[UserGrantRequest.accessGroupsKey] as? [Any] ?? []).compactMap { $0 as? String })
        }
    }

    private static func call(_ operation: ServiceRequest.Operation, _ entries: [WireEntry]) throws(KeychainCallFailure) -> ServiceReply {
        guard let socket = ItemCallRoute.socketPath else {
            let failure = KeychainStoreError.notAvailable("grants are kept by the keychain service, and this program uses the embedded "
                                                          + "keychain: set \(KeychainVariable.serviceSocket) to the service's socket")
            throw KeychainCallFailure(status: failure.osStatus, failure: failure)
        }
        return try ServiceKeychainCall.reply(to: operation, entries, socket: socket)
    }
}
