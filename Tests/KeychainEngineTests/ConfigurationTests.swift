import Foundation
import Testing
@testable import KeychainEngine

/// The process configuration: read from the environment once, at first use, not on every
/// keychain call (parsing an app's environment at every call would cost about a third of a
/// read); explicit settings win; `reloadConfiguration()` reads it again.
@Suite("Process configuration")
struct ConfigurationTests {
    /// A registry whose "environment" is `variables`, counting how often it is read.
    private final class CountingEnvironment: @unchecked Sendable {
        private let lock = NSLock()
        private var readCount = 0
        private var variables: [String: String]

        init(_ variables: [String: String]) { self.variables = variables }

        var reads: Int { lock.withLock { readCount } }

        func set(_ name: String, _ value: String) { lock.withLock { variables[name] = value } }

        func registry() -> KeychainRegistry {
            KeychainRegistry(readConfiguration: { [self] in
                let variables = lock.withLock { () -> [String: String] in
                    readCount += 1
                    return self.variables
                }
                return KeychainConfiguration(environment: variables, authenticator: OwnerAuthenticator(pinentry: nil))
            })
        }
    }

    @Test("the environment is read once, however many calls ask for the configuration")
    func readOnce() {
        let environment = CountingEnvironment(["KEYCHAINKIT_KEYCHAIN": "/k/one.keychain-db",
                                               "KEYCHAINKIT_ACCESS_GROUPS": "g1, g2", "KEYCHAINKIT_APP_ID": "app"])
        let registry = environment.registry()
        #expect(environment.reads == 0)  // nothing is read before first use
        for _ in 0..<100 {
            #expect(registry.defaultKeychainPath == "/k/one.keychain-db")
            #expect(registry.accessGroups.groups == ["g1", "g2", "app"])
            _ = registry.options()
        }
        #expect(environment.reads == 1)
    }

    @Test("a changed environment is seen only after reloadConfiguration()")
    func reload() {
        let environment = CountingEnvironment(["KEYCHAINKIT_KEYCHAIN": "/k/one.keychain-db", "KEYCHAINKIT_APP_ID": "app"])
        let registry = environment.registry()
        #expect(registry.defaultKeychainPath == "/k/one.keychain-db")
        environment.set("KEYCHAINKIT_KEYCHAIN", "/k/two.keychain-db")
        environment.set("KEYCHAINKIT_ROLLBACK_ANCHOR", "/anchors")
        #expect(registry.defaultKeychainPath == "/k/one.keychain-db")
        #expect(registry.options().rollbackAnchorDirectory == nil)
        registry.reloadConfiguration()
        #expect(registry.defaultKeychainPath == "/k/two.keychain-db")
        #expect(registry.options().rollbackAnchorDirectory == "/anchors")
        #expect(environment.reads == 2)
    }

    @Test("explicit settings take precedence over the environment, and nil returns to it")
    func precedence() {
        let environment = CountingEnvironment(["KEYCHAINKIT_KEYCHAIN": "/k/env.keychain-db", "KEYCHAINKIT_APP_ID": "app"])
        let registry = environment.registry()
        registry.setDefaultKeychainPath("/k/explicit.keychain-db")
        registry.setAccessGroups(["explicit"])
        #expect(registry.defaultKeychainPath == "/k/explicit.keychain-db")
        #expect(registry.accessGroups.groups == ["explicit"])
        registry.setDefaultKeychainPath(nil)
        registry.setAccessGroups(nil)
        #expect(registry.defaultKeychainPath == "/k/env.keychain-db")
        #expect(registry.accessGroups.groups == ["app"])
    }

    @Test("access groups are trimmed exactly as Foundation's CharacterSet.whitespaces trims")
    func groupTrimming() {
        let inputs = [" a ", "\tb\t", "\u{00A0}c\u{3000}", "\nd\n", " ", "", "e f", "\u{2003}g", "h\u{200B}"]
        let expected = inputs.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        #expect(AccessGroups(inputs).groups == expected)
        // Every Unicode scalar classified as Foundation classifies it.
        let differing = (0...0x10FFFF).compactMap(Unicode.Scalar.init).filter {
            AccessGroups.isWhitespace($0) != CharacterSet.whitespaces.contains($0)
        }
        #expect(differing.isEmpty, "\(differing.prefix(5).map { String($0.value, radix: 16) })")
        let configuration = KeychainConfiguration(environment: ["KEYCHAINKIT_ACCESS_GROUPS": " g1 , g2,, ", "KEYCHAINKIT_APP_ID": "app"],
                                                  authenticator: OwnerAuthenticator(pinentry: nil))
        #expect(configuration.accessGroups.groups == ["g1", "g2", "app"])
    }

    @Test("the variables map as documented: password file, session sharing, device key")
    func variables() throws {
        let configuration = KeychainConfiguration(
            environment: ["HOME": "/home/u", "KEYCHAINKIT_SESSION_KEYRING": "OFF", "KEYCHAINKIT_PASSWORD_FILE": "/run/pw",
                          "XDG_STATE_HOME": "/state"],
            authenticator: OwnerAuthenticator(pinentry: nil))
        #expect(configuration.defaultKeychainPath == "/home/u/.local/share/keychainkit/login.keychain-db")
        #expect(configuration.passwordFilePath == "/run/pw")
        #expect(configuration.sharesUnlockWithSession == false)
        let defaults = KeychainConfiguration(environment: ["HOME": "/home/u"], authenticator: OwnerAuthenticator(pinentry: nil))
        #expect(defaults.sharesUnlockWithSession)
        #expect(defaults.passwordFilePath == nil)
        #expect(try defaults.passwordFromFile() == nil)
    }

    @Test("the device key is under the user database's home whatever HOME and XDG_STATE_HOME say; those are earlier locations only; KEYCHAINKIT_DEVICE_KEY_FILE wins")
    func deviceKeyLocation() {
        func configuration(_ environment: [String: String], accountHome: String?) -> KeychainConfiguration {
            KeychainConfiguration(environment: environment, authenticator: OwnerAuthenticator(pinentry: nil), accountHome: accountHome)
        }
        let key = "/.local/state/keychainkit/device.key"
        for environment in [["HOME": "/home/u"], ["HOME": "/elsewhere", "XDG_STATE_HOME": "/state"], [:]] {
            #expect(configuration(environment, accountHome: "/home/u").deviceKeyPath == "/home/u" + key, "\(environment)")
        }
        let moved = configuration(["HOME": "/elsewhere", "XDG_STATE_HOME": "/state"], accountHome: "/home/u")
        #expect(moved.earlierDeviceKeyPaths == ["/state/keychainkit/device.key", "/elsewhere" + key])
        #expect(configuration(["HOME": "/home/u"], accountHome: "/home/u").earlierDeviceKeyPaths.isEmpty, "no duplicate of the first location")
        // A relative XDG_STATE_HOME is ignored, as the XDG spec says.
        #expect(configuration(["HOME": "/home/u", "XDG_STATE_HOME": "state"], accountHome: "/home/u").earlierDeviceKeyPaths.isEmpty)
        // No usable home in the user database (a bare uid in a container, DynamicUser=): HOME.
        #expect(configuration(["HOME": "/tmp/h"], accountHome: nil).deviceKeyPath == "/tmp/h" + key)
        let explicit = configuration(["HOME": "/home/u", "KEYCHAINKIT_DEVICE_KEY_FILE": "/keys/d.key"], accountHome: "/home/u")
        #expect(explicit.deviceKeyPath == "/keys/d.key")
        #expect(explicit.earlierDeviceKeyPaths.isEmpty)
    }

    private static func configuration(_ environment: [String: String]) -> KeychainConfiguration {
        KeychainConfiguration(environment: environment, authenticator: OwnerAuthenticator(pinentry: nil))
    }

    @Test("the tools' settings: testing KDF only for 1, the access log's limits checked, refused values named")
    func toolSettings() {
        #expect(Self.configuration(["KEYCHAINKIT_TESTING_KDF": "1"]).testingKDFRequested)
        for value in ["0", "yes", "true", " 1", ""] {
            #expect(!Self.configuration(["KEYCHAINKIT_TESTING_KDF": value]).testingKDFRequested, "\(value)")
        }
        let unset = Self.configuration([:]).accessLog
        #expect(unset == AccessLogConfiguration(maximumFileSize: .unset, rotatedFiles: .unset, killsWriterMidAppend: false,
                                                syncBoundMilliseconds: .unset))
        let set = Self.configuration(["KEYCHAINKIT_ACCESS_LOG_MAX_BYTES": "4096", "KEYCHAINKIT_ACCESS_LOG_FILES": "100",
                                      "KEYCHAINKIT_ACCESS_LOG_TEST_KILL": "1", "KEYCHAINKIT_ACCESS_LOG_SYNC_MS": "0"]).accessLog
        #expect(set == AccessLogConfiguration(maximumFileSize: .value(4096), rotatedFiles: .value(100), killsWriterMidAppend: true,
                                              syncBoundMilliseconds: .value(0)))
        #expect(Self.configuration(["KEYCHAINKIT_ACCESS_LOG_SYNC_MS": "60000"]).accessLog.syncBoundMilliseconds == .value(60_000))
        let empty = Self.configuration(["KEYCHAINKIT_ACCESS_LOG_MAX_BYTES": "", "KEYCHAINKIT_ACCESS_LOG_FILES": ""]).accessLog
        #expect(empty.maximumFileSize == .unset && empty.rotatedFiles == .unset)
        // The adversary's values: below, above, negative, overflowing, not a number, padded.
        for value in ["4095", "-4096", "0x1000", "4096 ", "1099511627777", "99999999999999999999999"] {
            #expect(Self.configuration(["KEYCHAINKIT_ACCESS_LOG_MAX_BYTES": value]).accessLog.maximumFileSize
                    == .refused(name: "KEYCHAINKIT_ACCESS_LOG_MAX_BYTES", value: value, expected: "a size in bytes of at least 4096"))
        }
        for value in ["0", "101", "-1", "two"] {
            #expect(Self.configuration(["KEYCHAINKIT_ACCESS_LOG_FILES": value]).accessLog.rotatedFiles
                    == .refused(name: "KEYCHAINKIT_ACCESS_LOG_FILES", value: value, expected: "a number of files from 1 to 100"))
        }
        for value in ["-1", "60001", "10ms", "1.5"] {
            #expect(Self.configuration(["KEYCHAINKIT_ACCESS_LOG_SYNC_MS": value]).accessLog.syncBoundMilliseconds
                    == .refused(name: "KEYCHAINKIT_ACCESS_LOG_SYNC_MS", value: value, expected: "a number of milliseconds from 0 to 60000"))
        }
        #expect(Self.configuration(["KEYCHAINKIT_ACCESS_LOG_TEST_KILL": "true"]).accessLog.killsWriterMidAppend == false)
    }

    @Test("another tool's default access group follows the same variables as this process's")
    func otherExecutablesGroups() {
        #expect(Self.configuration([:]).accessGroups(ofExecutable: "docker-credential-keychainkit").groups == ["docker-credential-keychainkit"])
        #expect(Self.configuration(["KEYCHAINKIT_APP_ID": "app"]).accessGroups(ofExecutable: "helper").groups == ["app"])
        #expect(Self.configuration(["KEYCHAINKIT_ACCESS_GROUPS": " shared ,x", "KEYCHAINKIT_APP_ID": "app"])
                    .accessGroups(ofExecutable: "helper").groups == ["shared", "x", "app"])
        #expect(Self.configuration(["KEYCHAINKIT_ACCESS_GROUPS": ",,", "KEYCHAINKIT_APP_ID": ""])
                    .accessGroups(ofExecutable: "helper").groups == ["helper"])
    }

    @Test("the etcd password is kept for keychainctl sync but never shown by printing or dumping the configuration")
    func etcdPasswordNeverDescribed() {
        let secret = "etcd-secret-7f3a"
        let configuration = Self.configuration(["KEYCHAINKIT_ETCD_PASSWORD": secret])
        #expect(configuration.etcdPassword?.value == secret)
        var dumped = ""
        dump(configuration, to: &dumped)
        for text in [String(describing: configuration), String(reflecting: configuration), dumped,
                     "\(configuration.etcdPassword as Any)", String(reflecting: configuration.etcdPassword)] {
            #expect(!text.contains(secret), "\(text)")
        }
        #expect(Self.configuration([:]).etcdPassword == nil)
    }

    @Test("the pinentry variables: an explicit program wins, the terminal's precedence, no prompt without a terminal or display")
    func pinentryVariables() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pinentry-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory + "/bin", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }  // cleanup only
        try #require(FileManager.default.createFile(atPath: directory + "/bin/pinentry", contents: Data("#!/bin/sh\n".utf8),
                                                    attributes: [.posixPermissions: 0o700]))
        let path = "/nonexistent:\(directory)/bin"
        let found = KeychainConfiguration.pinentry(["PATH": path, "GPG_TTY": "/dev/pts/9"])
        #expect(found == PinentryConfiguration(program: directory + "/bin/pinentry", terminal: "/dev/pts/9"))
        #expect(KeychainConfiguration.pinentry(["PATH": path, "KEYCHAINKIT_PINENTRY_TTY": "/dev/pts/1", "GPG_TTY": "/dev/pts/9"])?.terminal
                == "/dev/pts/1")
        #expect(KeychainConfiguration.pinentry(["PATH": path, "KEYCHAINKIT_PINENTRY_TTY": "", "GPG_TTY": "/dev/pts/9"])?.terminal
                == "/dev/pts/9", "an empty variable counts as unset")
        #expect(KeychainConfiguration.pinentry(["PATH": path, "KEYCHAINKIT_PINENTRY": "/opt/prompt", "GPG_TTY": "/dev/pts/9"])?.program
                == "/opt/prompt")
        #expect(KeychainConfiguration.pinentry(["PATH": "/nonexistent", "DISPLAY": ":0"]) == nil, "no pinentry on the PATH")
        if isatty(STDIN_FILENO) == 0 {
            // Neither a terminal nor a display: no prompt at all, so callers fail fast instead of hanging.
            #expect(KeychainConfiguration.pinentry(["PATH": path]) == nil)
            #expect(KeychainConfiguration.pinentry(["PATH": path, "WAYLAND_DISPLAY": "wayland-0"])?.terminal == nil)
        }
    }
}
