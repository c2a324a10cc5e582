#if KEYCHAINKIT_REIMPLEMENTED
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainSync

/// Opens the transport of a circle kept in the keychain at `keychainPath`: the circle's own
/// location (its circle state keeps ``SyncTransportLocation/stored``), or `override` when the
/// command was given one. `creating` makes a shared folder's marker (for `sync create`). The git
/// transport's private clone lives beside the keychain, in `<keychain>.sync/git`. An etcd user's
/// password comes from `password` (asked at most once, only when the circle names a user).
func syncTransportOpener(keychainPath: String, creating: Bool = false, override: SyncTransportLocation? = nil,
                         password: @escaping @Sendable (String) throws -> String) -> SyncTransportOpener {
    { (stored: String, circleID: String) throws(SyncError) -> any SyncTransport in
        do {
            let location = try override ?? SyncTransportLocation(stored: stored)
            return try location.makeTransport(keychainPath: keychainPath, creating: creating) { settings in
                try EtcdTransport.open(try settings.connection(password: password), circleID: circleID,
                                       location: settings.endpoints.joined(separator: ","))
            }
        } catch let error as SyncError {
            throw error
        } catch let error as SyncTransportError {
            throw .transport(error)
        } catch let failure as SyncCommandFailure {
            throw .transport(.refused(failure.message))
        } catch {
            throw .transport(.refused("\(error)"))
        }
    }
}
#endif
