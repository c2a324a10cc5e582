import Foundation
import RequiredToolSupport
import Testing

/// The Secret Service provider through the keychain service: a real service (started as root,
/// users made with `useradd`), a real `dbus-daemon` and `keychainctl secret-service` run as the
/// user, and libsecret's `secret-tool` as the D-Bus client. The provider keeps the items in the
/// user's keychain held by the service, and the service decides and logs each access under the
/// D-Bus client it identified itself, naming the provider.
@Suite("Keychain service: the Secret Service provider through the service (real users, real bus)",
       .integration, .tags(.external, .dbus), .serialized, .enabled(if: getuid() == 0, "creates users: run as root"))
struct SecretServiceRoutingTests {
    static let secretTool = RequiredTool.secretTool.path

    /// `session.sh PROVIDER`, run as a user: a private bus in a fresh directory (its socket open
    /// to every user, for the other-uid test), `PROVIDER secret-service` on it, then `ready DIR`
    /// on standard output; when standard input closes, both stop. The provider's standard error
    /// is `DIR/provider.log`.
    static let session = #"""
        set -u
        dir=$(mktemp -d /tmp/kkssr-XXXXXX)
        chmod 755 "$dir"
        cat > "$dir/bus.conf" <<EOF
        <busconfig>
          <type>session</type>
          <listen>unix:path=$dir/bus</listen>
          <auth>EXTERNAL</auth>
          <policy context="default">
            <allow user="*"/>
            <allow own="*"/>
            <allow send_destination="*" eavesdrop="true"/>
            <allow eavesdrop="true"/>
          </policy>
        </busconfig>
        EOF
        umask 000
        /usr/bin/dbus-daemon --config-file="$dir/bus.conf" --nofork --nopidfile >"$dir/bus.log" 2>&1 &
        bus=$!
        umask 077
        export DBUS_SESSION_BUS_ADDRESS="unix:path=$dir/bus"
        for i in $(seq 1 200); do [ -S "$dir/bus" ] && break; sleep 0.05; done
        "$1" secret-service 2>"$dir/provider.log" &
        provider=$!
        trap 'kill $provider $bus 2>/dev/null' EXIT
        for i in $(seq 1 600); do
          /usr/bin/dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
            org.freedesktop.DBus.NameHasOwner string:org.freedesktop.secrets 2>/dev/null | grep -q true && break
          kill -0 $provider 2>/dev/null || break
          sleep 0.05
        done
        echo "ready $dir"
        cat >/dev/null
        """#

    /// A provider session of `user` running `provider`; `stop()` ends it.
    final class Session {
        let process: Process
        let input: Pipe
        let directory: String
        var busAddress: String { "unix:path=\(directory)/bus" }
        var providerLog: String { (try? String(contentsOfFile: directory + "/provider.log", encoding: .utf8)) ?? "" }

        /// `environment` is the provider's, on top of the fixture's (e.g. `KEYCHAINKIT_PINENTRY`).
        init(_ fixture: ServiceFixture, as user: ServiceFixture.User, provider: String, environment: [String: String] = [:]) throws {
            try RequiredTool.require([.dbusDaemon, .dbusSend, .secretTool])
            let script = fixture.base + "/session-\(user.name).sh"
            try fixture.write(SecretServiceRoutingTests.session, to: script, owner: nil, mode: 0o644)
            let variables = environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            let launched = try fixture.launch(as: user, ["/usr/bin/env"] + variables + ["/bin/sh", script, provider])
            (process, input) = (launched.process, launched.input)
            var line = Data()
            let reader = launched.output.fileHandleForReading
            while !line.contains(UInt8(ascii: "\n")) {
                let more = reader.availableData
                guard !more.isEmpty else { throw FixtureFailure("the session script ended before it was ready") }
                line.append(more)
            }
            let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            guard text.hasPrefix("ready ") else { throw FixtureFailure("the session script said \(text)") }
            directory = String(text.dropFirst("ready ".count))
        }

        func stop() {
            try? input.fileHandleForWriting.close()  // test cleanup: the script stops its bus and provider
            process.waitUntilExit()
            try? FileManager.default.removeItem(atPath: directory)  // test cleanup
        }
    }

    /// `secret-tool ARGUMENTS` as `user` on `session`'s bus.
    static func secretTool(_ fixture: ServiceFixture, as user: ServiceFixture.User, on session: Session, _ arguments: [String],
                           stdin: String? = nil) throws -> ServiceFixture.Run {
        try fixture.run(as: user, [secretTool] + arguments, stdin: stdin, environment: ["DBUS_SESSION_BUS_ADDRESS": session.busAddress])
    }

    @Test("secret-tool store, lookup and clear through the provider and the service; the service logs secret-tool, naming the provider")
    func storeLookupClearLogged() throws {
        let fixture = try ServiceFixture()
        defer { fixture.stop() }
        try fixture.start()
        let alice = fixture.alice
        let session = try Session(fixture, as: alice, provider: fixture.program)
        defer { session.stop() }
        let attributes = ["service", "routed", "username", "alice"]
        let store = try Self.secretTool(fixture, as: alice, on: session, ["store", "--label=Routed"] + attributes, stdin: "routed-secret")
        #expect(store.status == 0, "\(store.error)\n--- provider\n\(session.providerLog)\n--- service\n\(fixture.log)")
        let lookup = try Self.secretTool(fixture, as: alice, on: session, ["lookup"] + attributes)
        #expect(lookup.status == 0 && lookup.output == "routed-secret", "\(lookup.output) \(lookup.error)\n\(session.providerLog)")

        // Another program of Alice's (keychainctl, through SecItem) does not get the item without
        // her consent, which cannot be asked here: errSecInteractionNotAllowed (exit 36).
        let other = try fixture.run(as: alice, [fixture.program, "find-generic-password", "-s", "routed", "-a", "alice", "-w"])
        #expect(other.status == 36 && !other.output.contains("routed-secret"), "\(other.status) \(other.output) \(other.error)")

        let clear = try Self.secretTool(fixture, as: alice, on: session, ["clear"] + attributes)
        #expect(clear.status == 0, "\(clear.error)")
        #expect(try Self.secretTool(fixture, as: alice, on: session, ["lookup"] + attributes).output.isEmpty)

        // One log, the service's: each access under secret-tool, with the provider named.
        let (run, entries) = try ServiceAccessLogTests.log(fixture, as: alice)
        #expect(run.status == 0, "\(run.error)")
        let throughProvider = entries.filter { $0["channel"] as? String == "secret-service" }
        #expect(!throughProvider.isEmpty && throughProvider.allSatisfy { $0["provider"] as? String == fixture.program }, "\(run.output)")
        let routed = throughProvider.filter { ($0["item"] as? [String: Any])?["service"] as? String == "routed" }
        #expect(Set(routed.compactMap { $0["operation"] as? String }).isSuperset(of: ["create", "read", "delete"]), "\(run.output)")
        for entry in routed {
            #expect(entry["application"] as? String == Self.secretTool, "\(entry)")
            #expect((entry["caller"] as? [[String: Any]])?.first?["executable"] as? String == Self.secretTool, "\(entry)")
        }
        #expect(!run.output.contains("routed-secret"))
        // The provider keeps no keychain file and no log of its own.
        let ownDirectory = alice.home + "/.local/share/keychains"
        let ownFiles = (try? FileManager.default.contentsOfDirectory(atPath: ownDirectory)) ?? []
        #expect(!ownFiles.contains { $0.hasSuffix(".keychain-db") || $0.contains("access-log") }, "\(ownFiles)")
    }

    @Test("a copy of keychainctl in a directory the user can write is not a provider: its forwarded calls are refused")
    func unverifiedProviderRefused() throws {
        let fixture = try ServiceFixture()
        defer { fixture.stop() }
        try fixture.start()
        let alice = fixture.alice
        let copy = alice.home + "/keychainctl"
        #expect(try fixture.run(as: alice, ["/bin/cp", fixture.program, copy]).status == 0)
        let session = try Session(fixture, as: alice, provider: copy)
        defer { session.stop() }
        let store = try Self.secretTool(fixture, as: alice, on: session, ["store", "--label=Forged", "service", "forged", "username", "a"],
                                        stdin: "forged-secret")
        #expect(store.status != 0, "an unverified provider stored an item: \(store.output)")
        #expect(fixture.log.contains("only the installed Secret Service provider"), "\(fixture.log)")
        // Nothing reached Alice's keychain or her log.
        let (_, entries) = try ServiceAccessLogTests.log(fixture, as: alice)
        #expect(!entries.contains { ($0["item"] as? [String: Any])?["service"] as? String == "forged" })
    }

    @Test("a D-Bus client of another user is not served: the service refuses a forwarded pid of another uid")
    func otherUIDRefused() throws {
        let fixture = try ServiceFixture()
        defer { fixture.stop() }
        try fixture.start()
        let session = try Session(fixture, as: fixture.alice, provider: fixture.program)
        defer { session.stop() }
        // Bob reaches Alice's bus (its policy lets any user in), so Alice's provider forwards his pid.
        let store = try Self.secretTool(fixture, as: fixture.bob, on: session, ["store", "--label=Bob's", "service", "bobs", "username", "b"],
                                        stdin: "bob-secret")
        #expect(store.status != 0, "a client of another uid was served: \(store.output)")
        #expect(fixture.log.contains("belongs to uid \(try fixture.uid(fixture.bob)), not uid \(try fixture.uid(fixture.alice))"),
                "\(fixture.log)\n--- provider\n\(session.providerLog)")
        let (_, entries) = try ServiceAccessLogTests.log(fixture, as: fixture.alice)
        #expect(!entries.contains { ($0["item"] as? [String: Any])?["service"] as? String == "bobs" })
    }

    @Test("a script forwarding for another process is refused: only the installed provider forwards")
    func scriptForwardingRefused() throws {
        let fixture = try ServiceFixture()
        defer { fixture.stop() }
        try fixture.start()
        let alice = fixture.alice
        // A forwarded read (operation 51) for the script's parent, a process of Alice's named with
        // its true start time (so only the check of the forwarder refuses it), sent by a Python script.
        let script = ServiceClientScripts.pythonOneRequest + #"""
            parent = os.getppid()
            with open('/proc/%d/stat' % parent) as stat: started = int(stat.read().rsplit(')', 1)[1].split()[19])
            send_request(51, {'class': string('genp'), 'r_Data': boolean(True), 'forwardedPid': integer(parent),
                              'forwardedStartTime': integer(started)})
            """#
        let path = fixture.base + "/forward.py"
        try fixture.write(script, to: path, owner: nil, mode: 0o644)
        let run = try fixture.run(as: alice, [try RequiredTool.python3.require(), "-I", path])
        #expect(run.output.trimmingCharacters(in: .whitespacesAndNewlines) == "-34018", "\(run.output) \(run.error) \(fixture.log)")
    }
}
