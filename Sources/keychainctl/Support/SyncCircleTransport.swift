#if canImport(KeychainSync)
import Foundation
import KeychainSync

/// How a circle's location is kept in its circle state: the state holds one string, so a git or
/// folder location is written as JSON (`{"git":{…}}`), and a string that is not JSON is a list of
/// etcd endpoints (what circles made before the git and folder transports hold).
extension SyncTransportLocation {
    /// The string the circle state keeps.
    var stored: String {
        switch self {
        case .etcd(let endpoints):
            return endpoints.joined(separator: ",")  // as before, so older keychainctl still reads it
        case .git, .folder:
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            do {
                return String(decoding: try encoder.encode(self), as: UTF8.self)
            } catch {
                preconditionFailure("a location of strings always encodes: \(error)")
            }
        }
    }

    /// The location a circle state's string names.
    init(stored: String) throws(SyncError) {
        guard stored.hasPrefix("{") else {
            self = .etcd(endpoints: stored.split(separator: ",").map(String.init))
            return
        }
        do {
            self = try JSONDecoder().decode(SyncTransportLocation.self, from: Data(stored.utf8))
        } catch {
            throw .transport(.malformed("this keychain's circle names a transport this keychainctl does not know; update keychainctl"))
        }
    }
}

/// Opens the transport of a circle kept in the keychain at `keychainPath`: the circle's own
/// location, or `override` when the command was given one. `creating` makes a shared folder's
/// marker (for `sync create`). The git transport's private clone lives beside the keychain, in
/// `<keychain>.sync/git`.
func syncTransportOpener(keychainPath: String, creating: Bool = false, override: SyncTransportLocation? = nil) -> SyncTransportOpener {
    { (stored: String, circleID: String) throws(SyncError) -> any SyncTransport in
        let location: SyncTransportLocation
        if let override { location = override } else { location = try SyncTransportLocation(stored: stored) }
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
