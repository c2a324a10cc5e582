/// Why a call to etcd failed. Messages name endpoints and reasons, never keys or values.
public enum EtcdError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No endpoint could be reached, or the connection failed mid-call.
    case unavailable(String)
    /// A wait for data passed its deadline.
    case timedOut
    /// The server answered with an HTTP error or a body that is not etcd's JSON.
    case badResponse(String)

    /// A sentence for people and logs.
    public var description: String {
        switch self {
        case .unavailable(let reason): return "etcd is unavailable: \(reason)"
        case .timedOut: return "etcd did not answer in time"
        case .badResponse(let reason): return "etcd answered unexpectedly: \(reason)"
        }
    }
}
