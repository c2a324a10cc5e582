#if os(Linux)  // mirrors the `.when(platforms: [.linux])` condition on keychainctl's SecretService dependency
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainServiceWire
import KeychainClient  // LoginKeychainServiceRoute: whether the service holds the keychain

/// `app-access` with the keychain service: the service keeps the Secret Service's per-application
/// access and decides each D-Bus client's access itself, so the commands read and change the
/// service's record — every change proved with the keychain password, which the service checks.
enum AppAccessService {
    /// One item as the service lists it.
    struct Item {
        var id: String
        var label: String
        var service: String?
        var account: String?
        var creator: String?
        var trusted: [String]
    }

    /// The service's socket when `keychain` (nil: the default one) is the user's keychain in the
    /// service; nil for an embedded keychain file.
    static func socket(for keychain: String?) -> String? {
        LoginKeychainServiceRoute.socket(for: keychain)
    }

    /// The policy and every Secret Service item with its lists.
    static func read(socket: String) throws -> (policy: String, items: [Item]) {
        let reply = try call(.readSecretServiceAccess, [], socket: socket, command: "app-access list")
        guard case .dictionary(let entries)? = reply.result else { return ("confirm", []) }
        let fields = WireEntry.dictionary(entries)
        let items = (fields[SecretServiceAccessRequest.itemsKey] as? [Any] ?? []).compactMap { value -> Item? in
            guard let item = value as? [String: Any], let id = item[SecretServiceAccessRequest.itemKey] as? String else { return nil }
            return Item(id: id, label: item[SecretServiceAccessRequest.labelKey] as? String ?? "",
                        service: item[SecretServiceAccessRequest.serviceKey] as? String,
                        account: item[SecretServiceAccessRequest.accountKey] as? String,
                        creator: item[SecretServiceAccessRequest.creatorKey] as? String,
                        trusted: (item[SecretServiceAccessRequest.trustedKey] as? [Any] ?? []).compactMap { $0 as? String })
        }
        return (fields[SecretServiceAccessRequest.policyKey] as? String ?? "confirm", items)
    }

    /// Changes the record (`action` with its entries), asking for the keychain password first.
    static func change(_ action: String, _ entries: [WireEntry], socket: String, toAllow description: String, command: String) throws {
        var password = try SecretInput.secret(prompt: "keychain password to \(description): ")
        defer { password.wipe() }
        _ = try call(.changeSecretServiceAccess,
                     [WireEntry(key: SecretServiceAccessRequest.passwordKey, value: .data(password)),
                      WireEntry(key: SecretServiceAccessRequest.actionKey, value: .string(action))] + entries,
                     socket: socket, command: command)
    }

    /// Prints the listing as `app-access list` does for an embedded keychain.
    static func printList(socket: String, item wanted: String?, json: Bool) throws {
        let (policy, all) = try read(socket: socket)
        let shown = all.filter { wanted == nil || $0.id == wanted }
        if let wanted, shown.isEmpty { throw UsageFailure(message: "no Secret Service item \(wanted) in your keychain in the service") }
        if json {
            let items = shown.map { item -> [String: Any] in
                ["id": item.id, "label": item.label, "service": item.service ?? JSONNull(), "account": item.account ?? JSONNull(),
                 "creator": item.creator ?? JSONNull(), "trusted": item.trusted]
            }
            let object: [String: Any] = ["keychain": "service", "policy": policy, "items": items]
            return Console.out(try JSONOutput.compact(object))
        }
        Console.out("keychain: your keychain in the keychain service")
        Console.out("policy for applications not on an item's list: \(policy)")
        for item in shown {
            Console.out("item \(item.id)")
            Console.out("    label: \"\(item.label)\"\(item.service.map { "  service: \"\($0)\"" } ?? "")\(item.account.map { "  account: \"\($0)\"" } ?? "")")
            Console.out("    creator: \(item.creator ?? "(none recorded)")")
            Console.out("    trusted: \(item.trusted.isEmpty ? "(none)" : item.trusted.joined(separator: ", "))")
        }
    }

    private static func call(_ operation: ServiceRequest.Operation, _ entries: [WireEntry], socket: String, command: String) throws -> ServiceReply {
        let request = ServiceRequest(operation: operation, claimedApplicationIdentifier: nil, claimedAccessGroups: [], query: entries)
        let reply: ServiceReply
        do {
            reply = try ServiceClient.send(request, to: socket)
        } catch {
            throw UsageFailure(message: "the keychain service at \(socket) did not answer (\(error)); nothing was changed", exitCode: 1)
        }
        guard reply.status == 0 else {
            let low = Int32(truncatingIfNeeded: UInt8(truncatingIfNeeded: reply.status))
            throw UsageFailure(message: (reply.failureReason ?? "the keychain service refused it (\(reply.status))"), exitCode: low == 0 ? 1 : low)
        }
        return reply
    }
}
#endif
