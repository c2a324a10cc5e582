import EtcdClusterSupport
import Foundation
import RequiredToolSupport
import Testing

/// `keychainctl sync create/join`'s connection options against a real etcd with TLS: the CA, the
/// client certificate, etcd users, plain HTTP only with --insecure. Each mistake is named before
/// anything is written.
@Suite("keychainctl sync connection options (real etcd with TLS)", .serialized, .integration, .tags(.external, .etcd, .openssl))
struct SyncConnectionOptionTests {
    @Test("a wrong CA, a missing client certificate and plain HTTP without --insecure are refused, each with its fix")
    func certificates() async throws {
        try await onDedicatedThread {
            let etcd = try SecuredEtcd.requiringClientCertificates()
            let (pki, endpoint) = (etcd.pki, etcd.endpoint)
            let port = try #require(etcd.cluster.members.first?.clientPort)
            try withSandbox { (sandbox) throws in
                let a = try sandbox.createKeychain("a.keychain-db", password: "pw")
                let clientCertificate = etcd.clientCertificateOptions

                let wrongCA = try sandbox.keychainctl(["sync", "create", "--endpoints", endpoint, "--cacert", pki.otherCAFile] + clientCertificate + [a])
                #expect(wrongCA.status == 1)
                #expect(wrongCA.stderr.contains("does not verify against the CA in \(pki.otherCAFile)"), "\(wrongCA.stderr)")
                #expect(wrongCA.stdout.isEmpty, "no circle code")

                let noCertificate = try sandbox.keychainctl(["sync", "join", "--endpoints", endpoint, "--cacert", pki.caFile, a], stdin: "kkc1-x\n")
                #expect(noCertificate.status == 1)
                #expect(noCertificate.stderr.contains("requires a client certificate") && noCertificate.stderr.contains("--cert"),
                        "\(noCertificate.stderr)")

                let plain = try sandbox.keychainctl(["sync", "create", "--endpoints", "http://127.0.0.1:\(port)", a])
                #expect(plain.status == 1)
                #expect(plain.stderr.contains("plain HTTP") && plain.stderr.contains("--insecure"), "\(plain.stderr)")

                let help = try sandbox.keychainctl(["sync", "create", "--help"])
                #expect(help.stdout.contains("--insecure") && help.stdout.contains("drop, delay or replay"), "\(help.stdout)")
                #expect(try sandbox.keychainctl(["sync", "status", a]).status == 1, "nothing was joined or created")
            }
            withExtendedLifetime(etcd) {}
        }
    }

    @Test("etcd users: the password from a file or the environment, never argv; a wrong one is refused, naming the user only")
    func passwords() async throws {
        try await onDedicatedThread {
            let etcd = try SecuredEtcd.withUser()
            let (pki, endpoint) = (etcd.pki, etcd.endpoint)
            try withSandbox { (sandbox) throws in
                let a = try sandbox.createKeychain("a.keychain-db", password: "pw")
                let passwordFile = try etcd.file("etcd-password", containing: "not-it")
                let base = ["sync", "create", "--endpoints", endpoint, "--cacert", pki.caFile, "--user", SecuredEtcd.user]

                let wrong = try sandbox.keychainctl(base + ["--password-file", passwordFile, a])
                #expect(wrong.status == 1)
                #expect(wrong.stderr.contains("rejected the user name or password for alice"), "\(wrong.stderr)")
                #expect(!wrong.stderr.contains("not-it"))

                let wrongFromEnvironment = try sandbox.keychainctl(base + [a], environment: ["KEYCHAINKIT_ETCD_PASSWORD": "also-wrong"])
                #expect(wrongFromEnvironment.stderr.contains("rejected the user name or password for alice"), "\(wrongFromEnvironment.stderr)")

                let none = try sandbox.keychainctl(base + [a], stdin: "")
                #expect(none.status == 1)
                #expect(none.stderr.contains("--password-file") && none.stderr.contains("KEYCHAINKIT_ETCD_PASSWORD"), "\(none.stderr)")

                let noUser = try sandbox.keychainctl(["sync", "create", "--endpoints", endpoint, "--cacert", pki.caFile, a])
                #expect(noUser.stderr.contains("requires authentication") && noUser.stderr.contains("--user"), "\(noUser.stderr)")
                #expect(try sandbox.keychainctl(["sync", "status", a]).status == 1, "nothing was joined or created")
            }
            withExtendedLifetime(etcd) {}
        }
    }
}
