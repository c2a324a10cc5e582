import Foundation
import KeychainTestSupport
import RequiredToolSupport
import Testing
@testable import KeychainSync

/// A git remote that never answers — a port that takes the connection and stays silent, reached
/// over git://, ssh and http — as an attacker who controls the server (or the network path) can
/// arrange: the fetch ends at the transport's network timeout with an error that says so, and git
/// and everything it started (ssh, git-remote-http) are gone afterwards.
@Suite("git remote that never answers", .serialized, .integration, .tags(.external, .git))
struct GitSilentRemoteTests {
    @Test("git://, ssh:// and http:// to a silent server: unreachable at the timeout, naming it, no process left behind",
          arguments: ["git://127.0.0.1:PORT/keys.git", "ssh://nobody@127.0.0.1:PORT/keys.git", "http://127.0.0.1:PORT/keys.git"])
    func silentRemote(_ template: String) throws {
        let silent = try SilentListener()
        let scratch = try ScratchFolder("git-silent")
        let remote = template.replacingOccurrences(of: "PORT", with: String(silent.port))
        // ssh must not ask about the host key (no terminal): what a configured user has.
        let environment = ["GIT_SSH_COMMAND": "ssh -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null"]
        let transport = try GitTransport(remote: remote, repositoryPath: scratch.path + "/clone.git", networkTimeout: .seconds(2),
                                         environment: environment)
        let started = ContinuousClock.now
        let error = #expect(throws: SyncTransportError.self) { try transport.refresh() }
        let took = started.duration(to: .now)
        guard case .unreachable(let reason)? = error else {
            Issue.record("expected unreachable, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("did not finish in time"), "\(reason)")
        #expect(took < .seconds(15), "the fetch was not cut at its timeout: \(took)")
        #expect(silent.processesMentioningPort().isEmpty, "left running: \(silent.processesMentioningPort())")
        // The clone is still usable: the last accepted state answers (empty here).
        #expect(try transport.list(prefix: "items/").isEmpty)
    }
}
