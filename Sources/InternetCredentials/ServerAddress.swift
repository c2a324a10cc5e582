import KeychainPrimitives

/// Splits the server addresses git and Docker pass around into host, port, path and scheme.
package enum ServerAddress {
    /// Splits `host[:port]` (IPv6 in brackets: `[::1]:8080`) into host and port. A port that is not
    /// a number in 1…65535 stays part of the host, so nothing is silently dropped.
    package static func splitHostPort(_ hostAndPort: String) -> (host: String, port: Int?) {
        if hostAndPort.hasPrefix("["), let close = hostAndPort.firstIndex(of: "]") {
            let host = String(hostAndPort[hostAndPort.index(after: hostAndPort.startIndex)..<close])
            let rest = hostAndPort[hostAndPort.index(after: close)...]
            if rest.hasPrefix(":"), let port = Int(rest.dropFirst()), (1...65535).contains(port) { return (host, port) }
            return (host, nil)
        }
        guard let colon = hostAndPort.lastIndex(of: ":"),
              hostAndPort.firstIndex(of: ":") == colon,  // a bare IPv6 address has several colons
              let port = Int(hostAndPort[hostAndPort.index(after: colon)...]), (1...65535).contains(port)
        else { return (hostAndPort, nil) }
        return (String(hostAndPort[..<colon]), port)
    }

    /// Parses a Docker server URL: `https://index.docker.io/v1/`, `ghcr.io`, `localhost:5000`.
    /// Without a scheme, `https` is assumed (as Docker's own helpers do). The path keeps its
    /// leading slash; nil when there is none (or it is just `/`). Nil for an empty host.
    package static func parseURL(_ url: String) -> (scheme: String, host: String, port: Int?, path: String?)? {
        var rest = Substring(url.trimmingWhitespaceAndNewlines())
        var scheme = "https"
        if let range = rest.firstRange(ofText: "://") {
            scheme = rest[..<range.lowerBound].lowercased()
            rest = rest[range.upperBound...]
        }
        var path: String?
        if let slash = rest.firstIndex(of: "/") {
            let tail = String(rest[slash...])
            path = tail == "/" ? nil : tail
            rest = rest[..<slash]
        }
        if let at = rest.lastIndex(of: "@") { rest = rest[rest.index(after: at)...] }  // no user info in a key
        let (host, port) = splitHostPort(String(rest))
        guard !host.isEmpty, !scheme.isEmpty else { return nil }
        return (scheme, host.lowercased(), port, path)
    }
}
