/// Why a call to etcd failed. Messages name endpoints, limits and reasons, never keys, values,
/// passwords or tokens.
package enum EtcdError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No endpoint could be reached, or the connection failed mid-call.
    case unavailable(String)
    /// A wait for data passed its deadline.
    case timedOut
    /// The server answered with an HTTP error, a body that is not etcd's JSON, or a response over
    /// one of the client's size limits (the reason names the limit).
    case badResponse(String)
    /// The connection or the request was refused for trust or access: the server's certificate did
    /// not verify against the named CA or is for another host, etcd rejected or required a client
    /// certificate, a user name or password was wrong or missing, or the user lacks permission.
    /// Retrying does not help; the reason names the fix.
    case refused(String)
    /// The connection settings cannot work as given (a plain `http://` endpoint without `insecure`,
    /// an `https://` endpoint without a CA, a certificate without its key, an unreadable file).
    case invalidConfiguration(String)

    /// A sentence for people and logs.
    package var description: String {
        switch self {
        case .unavailable(let reason): return "etcd is unavailable: \(reason)"
        case .timedOut: return "etcd did not answer in time"
        case .badResponse(let reason): return "etcd answered unexpectedly: \(reason)"
        case .refused(let reason): return "etcd refused the connection: \(reason)"
        case .invalidConfiguration(let reason): return "the etcd connection settings cannot work: \(reason)"
        }
    }
}
