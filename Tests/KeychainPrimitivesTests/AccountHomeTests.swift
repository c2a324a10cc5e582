import Foundation
import KeychainPrimitives
import Testing

/// `AccountHome` answers from the user database, so every process of a user gets the same home
/// whatever `HOME` it was started with.
@Suite("AccountHome")
struct AccountHomeTests {
    @Test("the user database's home of this user: an absolute directory the user owns")
    func userDatabaseHome() throws {
        guard let home = AccountHome.current() else { return }  // no usable entry: callers fall back to HOME
        var info = stat()
        #expect(stat(home, &info) == 0 && info.st_uid == geteuid() && (info.st_mode & S_IFMT) == S_IFDIR)
        #expect(home.hasPrefix("/") && home != "/")
        // What getent(1) reads from the user database for this uid, not HOME.
        let getent = Process()
        getent.executableURL = URL(fileURLWithPath: "/usr/bin/getent")
        getent.arguments = ["passwd", String(geteuid())]
        let output = Pipe()
        getent.standardOutput = output
        try getent.run()
        let line = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        getent.waitUntilExit()
        let fields = line.split(separator: ":", omittingEmptySubsequences: false)
        #expect(fields.count >= 6 && String(fields[5]) == home, "\(line)")
    }
}
