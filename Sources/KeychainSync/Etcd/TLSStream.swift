import COpenSSL
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The TLS settings every connection of one client shares (an OpenSSL `SSL_CTX`): TLS 1.2 or
/// later, the server verified against the named CA file only, and the client certificate when one
/// is given. Built once per ``EtcdClient``, so bad files are reported before any connection.
final class TLSContext: @unchecked Sendable {
    // SSL_CTX is safe to share between threads once configured; nothing changes it after init.
    let pointer: OpaquePointer
    /// OpenSSL's calls (OpenSSLLibrary), for this context and its connections.
    let ssl: UnsafePointer<kk_openssl>
    let caFile: String
    let hasClientCertificate: Bool

    init(caFile: String, certificateFile: String?, keyFile: String?) throws(EtcdError) {
        let ssl = try OpenSSLLibrary.calls()
        self.ssl = ssl
        guard let context = ssl.pointee.SSL_CTX_new(ssl.pointee.TLS_client_method()) else {
            throw .invalidConfiguration("OpenSSL cannot create a TLS context: \(openSSLErrors(ssl))")
        }
        pointer = context
        self.caFile = caFile
        hasClientCertificate = certificateFile != nil
        guard kk_SSL_CTX_set_min_proto_version(ssl, context, kk_TLS1_2_VERSION()) == 1 else {
            throw .invalidConfiguration("OpenSSL refuses TLS 1.2 as the minimum version: \(openSSLErrors(ssl))")
        }
        ssl.pointee.ERR_clear_error()
        guard FileManager.default.isReadableFile(atPath: caFile), ssl.pointee.SSL_CTX_load_verify_locations(context, caFile, nil) == 1 else {
            throw .invalidConfiguration("cannot read CA certificates (PEM) from \(caFile): \(openSSLErrors(ssl))")
        }
        ssl.pointee.SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        kk_SSL_CTX_allow_moving_partial_writes(ssl, context)
        switch (certificateFile, keyFile) {
        case (nil, nil):
            break
        case (let certificate?, let key?):
            guard ssl.pointee.SSL_CTX_use_certificate_chain_file(context, certificate) == 1 else {
                throw .invalidConfiguration("cannot read a client certificate (PEM) from \(certificate): \(openSSLErrors(ssl))")
            }
            guard ssl.pointee.SSL_CTX_use_PrivateKey_file(context, key, SSL_FILETYPE_PEM) == 1 else {
                throw .invalidConfiguration("cannot read the client key (PEM, unencrypted) from \(key): \(openSSLErrors(ssl))")
            }
            guard ssl.pointee.SSL_CTX_check_private_key(context) == 1 else {
                throw .invalidConfiguration("the key in \(key) is not the key of the certificate in \(certificate)")
            }
        default:
            throw .invalidConfiguration("a client certificate and its key go together: give both or neither")
        }
    }

    deinit {
        ssl.pointee.SSL_CTX_free(pointer)
    }
}

/// A TLS connection over a ``TCPStream``, every wait bounded by a deadline like the TCP stream's.
/// The server's certificate must chain to the context's CA and name `host`; failures of trust are
/// ``EtcdError/refused(_:)`` with the reason and the fix.
final class TLSStream: ByteStream {
    private let tcp: TCPStream
    private let connection: OpaquePointer
    private let context: TLSContext
    private let ssl: UnsafePointer<kk_openssl>
    private let endpoint: String
    private let timeout: Duration

    init(host: String, port: UInt16, context: TLSContext, timeout: Duration) throws(EtcdError) {
        tcp = try TCPStream(host: host, port: port, timeout: timeout)
        ssl = context.ssl
        guard let connection = ssl.pointee.SSL_new(context.pointer) else { throw .unavailable("OpenSSL cannot create a connection: \(openSSLErrors(ssl))") }
        self.connection = connection
        self.context = context
        self.timeout = timeout
        endpoint = "\(host):\(port)"
        guard ssl.pointee.SSL_set_fd(connection, tcp.descriptor) == 1 else { throw .unavailable("OpenSSL cannot use the socket: \(openSSLErrors(ssl))") }
        // The certificate must name the host we asked for: its IP address, or its DNS name (also sent as SNI).
        if Self.isIPAddress(host) {
            guard ssl.pointee.X509_VERIFY_PARAM_set1_ip_asc(ssl.pointee.SSL_get0_param(connection), host) == 1 else {
                throw .invalidConfiguration("OpenSSL cannot check certificates for the address \(host)")
            }
        } else {
            guard ssl.pointee.SSL_set1_host(connection, host) == 1, kk_SSL_set_tlsext_host_name(ssl, connection, host) == 1 else {
                throw .invalidConfiguration("OpenSSL cannot check certificates for the name \(host)")
            }
        }
        try handshake(deadline: .now + timeout)
    }

    deinit {
        ssl.pointee.SSL_free(connection)
    }

    private func handshake(deadline: ContinuousClock.Instant) throws(EtcdError) {
        while true {
            ssl.pointee.ERR_clear_error()
            let result = ssl.pointee.SSL_connect(connection)
            if result == 1 { return }
            try waitOrFail(result, deadline: deadline, during: "the TLS handshake")
        }
    }

    func write(_ data: Data) throws(EtcdError) {
        let deadline = ContinuousClock.now + timeout
        var offset = 0
        while offset < data.count {
            ssl.pointee.ERR_clear_error()
            let written = data.withUnsafeBytes { buffer -> Int32 in
                guard let base = buffer.baseAddress else { return 0 }
                return ssl.pointee.SSL_write(connection, base + offset, Int32(clamping: buffer.count - offset))
            }
            if written > 0 {
                offset += Int(written)
            } else {
                try waitOrFail(written, deadline: deadline, during: "writing")
            }
        }
    }

    func read(deadline: ContinuousClock.Instant?) throws(EtcdError) -> Data {
        let limit = deadline ?? .now + timeout
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            ssl.pointee.ERR_clear_error()
            let count = buffer.withUnsafeMutableBytes { ssl.pointee.SSL_read(connection, $0.baseAddress, Int32($0.count)) }
            if count > 0 { return Data(buffer[0..<Int(count)]) }
            let code = ssl.pointee.SSL_get_error(connection, count)
            // A clean close_notify, or the peer closing the socket without one: the end of the
            // stream. The HTTP framing above notices a response cut short.
            if code == SSL_ERROR_ZERO_RETURN || (code == SSL_ERROR_SYSCALL && errno == 0) { return Data() }
            if code == SSL_ERROR_SSL {
                let reasons = self.reasons()
                if reasons.contains(where: { $0.contains("unexpected eof") }) { return Data() }
                throw failure(code, reasons: reasons, during: "reading")
            }
            try waitOrFail(count, deadline: limit, during: "reading", timeoutError: .timedOut)
        }
    }

    /// Waits for the socket when OpenSSL asks to (until `deadline`), or throws why it failed.
    private func waitOrFail(_ result: Int32, deadline: ContinuousClock.Instant, during step: String,
                            timeoutError: EtcdError? = nil) throws(EtcdError) {
        let code = ssl.pointee.SSL_get_error(connection, result)
        let events: Int16
        switch code {
        case SSL_ERROR_WANT_READ: events = Int16(POLLIN)
        case SSL_ERROR_WANT_WRITE: events = Int16(POLLOUT)
        default: throw failure(code, during: step)
        }
        guard TCPStream.wait(tcp.descriptor, for: events, deadline: deadline) else {
            throw timeoutError ?? .unavailable("\(endpoint): \(step) timed out")
        }
    }

    /// Why the connection failed, in words that name the fix.
    private func failure(_ code: Int32, reasons queued: [String]? = nil, during step: String) -> EtcdError {
        let verification = ssl.pointee.SSL_get_verify_result(connection)
        if verification != X509_V_OK {
            let reason = ssl.pointee.X509_verify_cert_error_string(verification).map { String(cString: $0) } ?? "verification error \(verification)"
            if verification == X509_V_ERR_HOSTNAME_MISMATCH || verification == X509_V_ERR_IP_ADDRESS_MISMATCH {
                return .refused("""
                    the certificate of \(endpoint) is not for that host (\(reason)): connect by a name or address its \
                    certificate lists in subjectAltName, or reissue the certificate with it
                    """)
            }
            return .refused("""
                the certificate of \(endpoint) does not verify against the CA in \(context.caFile) (\(reason)): name the \
                CA that signed etcd's server certificate
                """)
        }
        let reasons = queued ?? self.reasons()
        let summary = reasons.isEmpty ? (code == SSL_ERROR_SYSCALL ? "the connection closed" : "OpenSSL error \(code)") : reasons.joined(separator: "; ")
        if reasons.contains(where: { $0.contains("wrong version number") || $0.contains("packet length too long") }) {
            return .refused("\(endpoint) does not speak TLS (\(summary)): is it an http:// endpoint?")
        }
        let clientCertificateAlerts = ["alert bad certificate", "alert certificate required", "alert unknown ca",
                                       "alert certificate unknown", "alert handshake failure", "alert unsupported certificate",
                                       "alert certificate expired", "alert certificate revoked", "alert access denied"]
        if reasons.contains(where: { reason in clientCertificateAlerts.contains { reason.contains($0) } }) {
            if !context.hasClientCertificate {
                return .refused("""
                    \(endpoint) requires a client certificate (\(summary)): give a certificate signed by a CA in etcd's \
                    --trusted-ca-file, and its key (keychainctl: --cert, --key)
                    """)
            }
            return .refused("""
                \(endpoint) rejected the client certificate (\(summary)): it must be signed by a CA in etcd's \
                --trusted-ca-file, be valid now and allow client authentication
                """)
        }
        return .unavailable("\(endpoint): TLS failed during \(step): \(summary)")
    }

    /// OpenSSL's queued error reasons for this thread, oldest first (the queue is emptied).
    private func reasons() -> [String] {
        var reasons: [String] = []
        while true {
            let code = ssl.pointee.ERR_get_error()
            guard code != 0 else { return reasons }
            if let text = ssl.pointee.ERR_reason_error_string(code) { reasons.append(String(cString: text)) } else { reasons.append("error \(code)") }
        }
    }

    private static func isIPAddress(_ host: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }
}

/// OpenSSL's queued errors as one line (emptying the queue), for configuration errors.
func openSSLErrors(_ ssl: UnsafePointer<kk_openssl>) -> String {
    var reasons: [String] = []
    while true {
        let code = ssl.pointee.ERR_get_error()
        guard code != 0 else { break }
        var buffer = [CChar](repeating: 0, count: 256)
        buffer.withUnsafeMutableBufferPointer { ssl.pointee.ERR_error_string_n(code, $0.baseAddress, $0.count) }
        reasons.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }
    return reasons.isEmpty ? "no detail from OpenSSL" : reasons.joined(separator: "; ")
}
