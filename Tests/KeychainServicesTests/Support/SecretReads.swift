import Foundation
import KeychainEngine
import KeychainServices

extension SecItemEngine {
    /// `SecItemCopyMatching` for the secret of the generic password `account` (service "svc"),
    /// with an optional authentication context and `kSecUseAuthenticationUI` value: how the
    /// access-control and biometry tests read a guarded item.
    func readSecret(account: String, context: LAContext? = nil, ui: CFString? = nil) -> SecItemResult {
        var query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "svc",
            kSecAttrAccount as String: account, kSecReturnData as String: true,
        ]
        if let context { query[kSecUseAuthenticationContext as String] = context }
        if let ui { query[kSecUseAuthenticationUI as String] = ui }
        return copyMatching(query)
    }
}
