import KeychainStore

/// Why a sync operation failed. Messages never contain secrets, item names or values.
public enum SyncError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The circle code is not one this library writes.
    case invalidCircleCode
    /// This keychain is not in a circle (create or join one first).
    case notInCircle
    /// This keychain is already in a circle.
    case alreadyInCircle
    /// No circle with this code exists in etcd, or the code's secret does not open its keys.
    case circleNotFound
    /// This device was removed from the circle (or its keys were rotated without it).
    case removedFromCircle
    /// A record or key in etcd did not authenticate: altered, or written without the circle's keys.
    case tampered(String)
    /// etcd failed.
    case store(EtcdError)
    /// The local keychain failed.
    case keychain(KeychainStoreError)

    /// A sentence for people and logs.
    public var description: String {
        switch self {
        case .invalidCircleCode: return "not a circle code (it starts with kkc1-)"
        case .notInCircle: return "this keychain is not in a sync circle"
        case .alreadyInCircle: return "this keychain is already in a sync circle"
        case .circleNotFound: return "no circle with this code in etcd, or the code does not open it"
        case .removedFromCircle: return "this device was removed from the circle"
        case .tampered(let what): return "\(what) in etcd did not authenticate"
        case .store(let error): return error.description
        case .keychain(let error): return error.description
        }
    }
}
