import EtcdClusterSupport
import Foundation
import RequiredToolSupport
import Testing

/// `keychainctl sync` end to end over etcd with TLS: the circle keeps how it reaches etcd (CA,
/// client certificate, user; never the password), and every later command uses it.
@Suite("keychainctl sync over TLS (real etcd)", .serialized, .integration, .tags(.external, .etcd, .openssl))
struct SyncOverTLSTests {
    @Test("create, join, sponsor and run over TLS with client certificates carry an item; a run whose CA file now holds an unrelated CA is refused")
    func clientCertificates() async throws {
        try await onDedicatedThread {
            let etcd = try SecuredEtcd.requiringClientCertificates()
            let (pki, endpoint) = (etcd.pki, etcd.endpoint)
            #expect(endpoint.hasPrefix("https://"))
            try withSandbox { (sandbox) throws in
                // A CA file of its own, so that it can be replaced below.
                let caFile = pki.directory.appendingPathComponent("circle-ca.pem").path
                try FileManager.default.copyItem(atPath: pki.caFile, toPath: caFile)
                let (a, b) = try sandbox.twoKeychainCircle(place: ["--endpoints", endpoint, "--cacert", caFile] + etcd.clientCertificateOptions)

                #expect(try sandbox.keychainctl(["add-generic-password", "-a", "shared", "-s", "svc", "--synchronizable", a, "-w"],
                                                stdin: "over-tls\n").status == 0)
                let pushed = try sandbox.keychainctl(["sync", "run", a])
                #expect(pushed.status == 0 && pushed.stdout.contains("pushed 1"), "\(pushed.stdout)\(pushed.stderr)")
                let pulled = try sandbox.keychainctl(["sync", "run", b])
                #expect(pulled.status == 0 && pulled.stdout.contains("pulled 1"), "\(pulled.stdout)\(pulled.stderr)")
                #expect(try sandbox.keychainctl(["find-generic-password", "-a", "shared", "-w", b]).stdout == "over-tls\n")

                let status = try sandbox.keychainctl(["sync", "status", b])
                #expect(status.status == 0 && status.stdout.contains("transport etcd \(endpoint) (CA \(caFile))"), "\(status.stdout)\(status.stderr)")
                #expect(!status.stdout.contains("plain HTTP"))

                // The adversary's CA: the file the circle names now holds an unrelated CA.
                try FileManager.default.removeItem(atPath: caFile)
                try FileManager.default.copyItem(atPath: pki.otherCAFile, toPath: caFile)
                let refused = try sandbox.keychainctl(["sync", "run", a])
                #expect(refused.status == 1)
                #expect(refused.stderr.contains("does not verify against the CA in \(caFile)"), "\(refused.stderr)")
                #expect(!refused.stdout.contains("synchronized"))

                // A move to settings that cannot connect is refused and not recorded.
                let badMove = try sandbox.keychainctl(["sync", "run", "--endpoints", endpoint, "--cacert", pki.otherCAFile]
                                                      + etcd.clientCertificateOptions + [a])
                #expect(badMove.status == 1 && badMove.stderr.contains("does not verify against the CA in \(pki.otherCAFile)"), "\(badMove.stderr)")
                #expect(!(try sandbox.keychainctl(["sync", "status", a]).stdout.contains(pki.otherCAFile)))

                // The fix the docs give: name the right CA once with the location; it is recorded for later runs.
                let moved = try sandbox.keychainctl(["sync", "run", "--endpoints", endpoint, "--cacert", pki.caFile]
                                                    + etcd.clientCertificateOptions + [a])
                #expect(moved.status == 0, "\(moved.stderr)")
                let after = try sandbox.keychainctl(["sync", "run", a])
                #expect(after.status == 0 && after.stdout.contains("synchronized"), "\(after.stderr)")
                #expect(try sandbox.keychainctl(["sync", "status", a]).stdout.contains("(CA \(pki.caFile))"))

                // Settings without a location are not silently ignored.
                let stray = try sandbox.keychainctl(["sync", "run", "--insecure", a])
                #expect(stray.status != 0 && stray.stderr.contains("go with --endpoints"), "\(stray.stderr)")
            }
            withExtendedLifetime(etcd) {}
        }
    }

    @Test("an etcd user's password is asked again by run, sponsor and status (file or environment), never stored; without one, the fix is named")
    func passwordsAgain() async throws {
        try await onDedicatedThread {
            let etcd = try SecuredEtcd.withUser()
            let (pki, endpoint) = (etcd.pki, etcd.endpoint)
            try withSandbox { (sandbox) throws in
                let a = try sandbox.createKeychain("a.keychain-db", password: "pw")
                let b = try sandbox.createKeychain("b.keychain-db", password: "pw")
                let passwordFile = try etcd.file("etcd-password", containing: SecuredEtcd.password)
                let place = ["--endpoints", endpoint, "--cacert", pki.caFile, "--user", SecuredEtcd.user]
                let withFile = ["--password-file", passwordFile]
                let environment = ["KEYCHAINKIT_ETCD_PASSWORD": SecuredEtcd.password]

                let created = try sandbox.keychainctl(["sync", "create"] + place + withFile + [a])
                #expect(created.status == 0, "\(created.stderr)")
                let code = created.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
                let joined = try sandbox.keychainctl(["sync", "join"] + place + [b], stdin: code + "\n", environment: environment)
                #expect(joined.status == 0, "\(joined.stderr)")
                let bID = joined.stdout.trimmingCharacters(in: .whitespacesAndNewlines)

                let noPassword = try sandbox.keychainctl(["sync", "sponsor", bID, a], stdin: "")
                #expect(noPassword.status == 1)
                #expect(noPassword.stderr.contains("no password for etcd user alice") && noPassword.stderr.contains("--password-file"),
                        "\(noPassword.stderr)")
                let sponsored = try sandbox.keychainctl(["sync", "sponsor", bID, a] + withFile)
                #expect(sponsored.status == 0, "\(sponsored.stderr)")
                let confirmed = try sandbox.keychainctl(["sync", "confirm", sponsored.stdout.trimmingCharacters(in: .whitespacesAndNewlines), b],
                                                        environment: environment)
                #expect(confirmed.status == 0, "\(confirmed.stderr)")

                #expect(try sandbox.keychainctl(["add-generic-password", "-a", "shared", "-s", "svc", "--synchronizable", a, "-w"],
                                                stdin: "with-a-user\n").status == 0)
                #expect(try sandbox.keychainctl(["sync", "run", a], environment: environment).stdout.contains("pushed 1"))
                #expect(try sandbox.keychainctl(["sync", "run", b] + withFile).stdout.contains("pulled 1"))
                #expect(try sandbox.keychainctl(["find-generic-password", "-a", "shared", "-w", b]).stdout == "with-a-user\n")

                let wrong = try sandbox.keychainctl(["sync", "status", a], environment: ["KEYCHAINKIT_ETCD_PASSWORD": "not-it"])
                #expect(wrong.stderr.contains("rejected the user name or password for alice") && !wrong.stderr.contains("not-it"),
                        "\(wrong.stderr)")
                let status = try sandbox.keychainctl(["sync", "status", a], environment: environment)
                #expect(status.status == 0 && status.stdout.contains("user alice"), "\(status.stderr)")

            }
            withExtendedLifetime(etcd) {}
        }
    }
}
