#if canImport(KeychainSync)
import Foundation
import KeychainSync

/// Opens the transport of a circle kept in the keychain at `keychainPath`: the circle's own
/// location (its circle state keeps ``SyncTransportLocation/stored``), or `override` when the
/// command was given one. `creating` makes a shared folder's marker (for `sync create`). The git
/// transport's private clone lives beside the keychain, in `<keychain>.sync/git`.
func syncTransportOpener(keychainPath: String, creating: Bool = false, override: SyncTransportLocation? = nil) -> SyncTransportOpener {
    { (stored: String, circleID: String) throws(SyncError) -> any SyncTransport in
        let location = override ?? SyncTransportLocation(stored: stored)
        do {
            return try location.makeTransport(keychainPath: keychainPath, creating: creating) { endpoints in
                try EtcdTransport.open(location: endpoints.joined(separator: ","), circleID: circleID)
            }
        } catch let error as SyncError {
            throw error
        } catch let error as SyncTransportError {
            throw .transport(error)
        } catch {
            throw .transport(.refused("\(location): \(error)"))
        }
    }
}
#endif
