import Foundation
import KeychainSync
import LoopbackPortSupport
import PrivateBusSupport
import RequiredToolSupport
import Testing

/// A token in an https remote URL: git must get it (the server sees it in the Authorization header)
/// and no process may carry it in its argv, which every user can read in /proc/<pid>/cmdline.
@Suite("git transport: a token in the remote URL", .serialized, .integration, .tags(.external, .git))
struct GitTokenTests: TransportTestCase {
    /// An HTTP server (Python's) on loopback that asks for Basic authentication, writes the
    /// Authorization header it then gets to `headerFile`, and answers slowly, so that git's helper
    /// processes live long enough to be seen.
    static let server = """
        import http.server, sys, time
        header_file = sys.argv[2]
        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                auth = self.headers.get("Authorization")
                if auth is None:
                    time.sleep(1)
                    self.send_response(401)
                    self.send_header("WWW-Authenticate", 'Basic realm="keys"')
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                with open(header_file, "w") as f:
                    f.write(auth)
                time.sleep(1)
                self.send_response(404)
                self.send_header("Content-Length", "0")
                self.end_headers()
            def log_message(self, *args):
                pass
        http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
        """

    /// Every process's command line that contains `needle`.
    static func commandLines(containing needle: String) -> [String] {
        guard let pids = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
        var found: [String] = []
        for pid in pids where pid.allSatisfy(\.isNumber) {
            guard let bytes = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { continue }
            let line = String(decoding: bytes.map { $0 == 0 ? UInt8(ascii: " ") : $0 }, as: UTF8.self)
            if line.contains(needle) { found.append(line) }
        }
        return found
    }

    @Test("the token reaches the server through sync's own credential helper, never through any process's argv")
    func tokenNeverInArgv() throws {
        try RequiredTool.python3.require()
        let scratch = try ScratchFolder("git-token")
        let port = try LoopbackPort.next()
        try Self.server.write(toFile: scratch.path + "/server.py", atomically: true, encoding: .utf8)
        let headerFile = scratch.path + "/authorization"
        let server = try BackgroundProcess(name: "http server", arguments: ["/usr/bin/python3", scratch.path + "/server.py", String(port), headerFile],
                                           environment: ["PATH": "/usr/bin:/bin"], logPath: scratch.path + "/server.log")
        try Shell.waitForListener(port: port, process: server)
        let token = "tok-\(UUID().uuidString)"
        // git hands an http(s) URL to its helper (git-remote-http, git-remote-https) in argv alike;
        // the test's server speaks plain http.
        let plain = try GitTransport(remote: "http://ada:\(token)@127.0.0.1:\(port)/keys.git", repositoryPath: scratch.path + "/sync-plain.git",
                                     networkTimeout: .seconds(30))
        let seen = LockedLines()
        let done = LockedFlag()
        let watcher = Thread {
            while !done.isSet {
                for line in Self.commandLines(containing: token) { seen.append(line) }
                usleep(2_000)
            }
        }
        watcher.start()
        let failure = Self.error { () throws(SyncTransportError) in try plain.refresh() }
        done.set()
        Thread.sleep(forTimeInterval: 0.05)
        #expect(seen.lines.isEmpty, "argv with the token: \(seen.lines)")
        #expect(!(failure?.description.contains(token) ?? false))
        let header = try String(contentsOfFile: headerFile, encoding: .utf8)
        #expect(header == "Basic " + Data("ada:\(token)".utf8).base64EncodedString())
        let onDisk = try String(contentsOfFile: scratch.path + "/sync-plain.git/config", encoding: .utf8)
        #expect(!onDisk.contains(token))
        withExtendedLifetime(server) {}
    }
}

final class LockedLines: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [String] = []
    func append(_ line: String) { lock.withLock { stored.append(line) } }
    var lines: [String] { lock.withLock { stored } }
}

final class LockedFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    func set() { lock.withLock { value = true } }
    var isSet: Bool { lock.withLock { value } }
}
