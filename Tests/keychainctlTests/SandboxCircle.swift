import Foundation
import Testing

extension ToolSandbox {
    /// Keychains a and b (password "pw") in one circle, as a user makes one with keychainctl:
    /// `sync create` on a with `place` (how to reach the transport), `sync join` on b with the
    /// code, `sync sponsor` of b's id on a, `sync confirm` on b with the confirmation a printed, then a
    /// first `sync` on b. Returns their paths.
    func twoKeychainCircle(place: [String]) throws -> (a: String, b: String) {
        let a = try createKeychain("a.keychain-db", password: "pw")
        let b = try createKeychain("b.keychain-db", password: "pw")
        let created = try keychainctl(["sync", "create"] + place + [a])
        #expect(created.status == 0, "\(created.stderr)")
        let code = created.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let joined = try keychainctl(["sync", "join"] + place + [b], stdin: code + "\n")
        #expect(joined.status == 0, "\(joined.stderr)")
        let id = joined.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let sponsored = try keychainctl(["sync", "sponsor", id, a])
        #expect(sponsored.status == 0, "\(sponsored.stderr)")
        let confirmed = try keychainctl(["sync", "confirm", sponsored.stdout.trimmingCharacters(in: .whitespacesAndNewlines), b])
        #expect(confirmed.status == 0, "\(confirmed.stderr)")
        let first = try keychainctl(["sync", b])
        #expect(first.status == 0, "\(first.stderr)")
        return (a, b)
    }
}
