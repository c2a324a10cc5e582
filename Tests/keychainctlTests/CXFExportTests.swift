import Foundation
import Testing

/// `keychainctl export --format cxf --plaintext-export FILE` and CXF files in `import-credentials`:
/// the document checked member by member against the CXF 1.0 data model's required fields, the
/// file's mode and the refusal to overwrite, and a round trip into another keychain.
@Suite("keychainctl export --format cxf")
struct CXFExportTests {
    /// The members CXF 1.0 requires at each level (https://fidoalliance.org/specs/cx/cxf-v1.0-ps-20250814.html).
    static func validate(_ document: [String: Any]) -> [String] {
        var problems: [String] = []
        func isID(_ value: Any?) -> Bool {
            guard let text = value as? String, !text.isEmpty, !text.contains("="), !text.contains("+"), !text.contains("/") else { return false }
            var padded = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            while padded.count % 4 != 0 { padded += "=" }
            return Data(base64Encoded: padded).map { $0.count <= 64 } ?? false
        }
        let version = document["version"] as? [String: Any]
        if !(version?["major"] is Int) || !(version?["minor"] is Int) { problems.append("version {major, minor}") }
        if (version?["major"] as? Int) != 1 { problems.append("version.major 1") }
        for member in ["exporterRpId", "exporterDisplayName"] where !(document[member] is String) { problems.append(member) }
        if !(document["timestamp"] is Int) { problems.append("timestamp (integer seconds)") }
        guard let accounts = document["accounts"] as? [[String: Any]] else { return problems + ["accounts"] }
        for account in accounts {
            if !isID(account["id"]) { problems.append("account.id (base64url, ≤64 bytes)") }
            for member in ["username", "email"] where !(account[member] is String) { problems.append("account.\(member)") }
            if !(account["collections"] is [Any]) { problems.append("account.collections") }
            for item in account["items"] as? [[String: Any]] ?? [] {
                if !isID(item["id"]) { problems.append("item.id") }
                if !(item["title"] is String) { problems.append("item.title") }
                for credential in item["credentials"] as? [[String: Any]] ?? [] {
                    guard let type = credential["type"] as? String else { problems.append("credential.type"); continue }
                    let fields: [(String, String)] = type == "basic-auth" ? [("username", "string"), ("password", "concealed-string")]
                        : type == "note" ? [("content", "string")] : []
                    for (name, fieldType) in fields {
                        guard let field = credential[name] else { continue }
                        let dictionary = field as? [String: Any]
                        if dictionary?["fieldType"] as? String != fieldType || !(dictionary?["value"] is String) {
                            problems.append("\(type).\(name) {fieldType \(fieldType), value}")
                        }
                    }
                }
                if let scope = item["scope"] as? [String: Any], !(scope["urls"] is [String]) || !(scope["androidApps"] is [Any]) {
                    problems.append("item.scope {urls, androidApps}")
                }
            }
        }
        return problems
    }

    @Test("the export: CXF 1.0's required members, 0600, never over a file; imported into another keychain it gives the same passwords")
    func exportAndRoundTrip() throws {
        var exported = ""
        var document = Data()
        try withSandbox { (sandbox) throws in
            #expect(try sandbox.keychainctl(["add-internet-password", "-a", "bob", "-s", "git.example.com", "-r", "htps", "-P", "8443",
                                             "-p", "org/repo", "-l", "Git at work", "-w"], stdin: "inet, \"secret\"\n").status == 0)
            #expect(try sandbox.keychainctl(["add-generic-password", "-a", "alice", "-s", "bank", "-j", "a comment", "-w"], stdin: "gen-secret\n").status == 0)
            exported = sandbox.directory + "/export.cxf"
            let noFlag = try sandbox.keychainctl(["export", "--format", "cxf"])
            #expect(noFlag.status != 0 && noFlag.stderr.contains("--plaintext-export"), "\(noFlag.stderr)")
            let run = try sandbox.keychainctl(["export", "--format", "cxf", "--plaintext-export", exported])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout.contains("wrote 2 passwords") && run.stdout.contains("IN PLAIN TEXT"), "\(run.stdout)")
            let attributes = try FileManager.default.attributesOfItem(atPath: exported)
            #expect((attributes[.posixPermissions] as? Int) == 0o600)
            document = try Data(contentsOf: URL(fileURLWithPath: exported))
            let again = try sandbox.keychainctl(["export", "--format", "cxf", "--plaintext-export", exported])
            #expect(again.status != 0 && again.stderr.contains("never replaces"), "\(again.stderr)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: exported)) == document, "the first export is left as it was")
        }
        let json = try #require(try JSONSerialization.jsonObject(with: document) as? [String: Any])
        #expect(Self.validate(json).isEmpty, "\(Self.validate(json))")
        let items = ((json["accounts"] as? [[String: Any]])?.first?["items"] as? [[String: Any]]) ?? []
        #expect(items.count == 2)
        let inet = items.first { $0["title"] as? String == "Git at work" }
        #expect((inet?["scope"] as? [String: Any])?["urls"] as? [String] == ["https://git.example.com:8443/org/repo"], "\(String(describing: inet))")

        try withSandbox { (sandbox) throws in
            let copy = sandbox.directory + "/in.cxf"
            try document.write(to: URL(fileURLWithPath: copy))
            let imported = try sandbox.keychainctl(["import-credentials", copy, "--apply"])
            #expect(imported.status == 0 && imported.stdout.contains("stored 2 credentials"), "\(imported)")
            #expect(imported.stdout.contains("left in \(copy): 1 note beside a login (not kept)"), "\(imported.stdout)")
            let inet = try sandbox.keychainctl(["find-internet-password", "-s", "git.example.com", "-a", "bob", "-P", "8443", "-w"])
            #expect(inet.stdout == "inet, \"secret\"\n", "\(inet)")
            let generic = try sandbox.keychainctl(["find-generic-password", "-s", "bank", "-a", "alice", "-w"])
            #expect(generic.stdout == "gen-secret\n", "\(generic)")
        }
    }

    @Test("importing a CXF file: passkeys, TOTP and other types are listed with a count, never silently dropped; a malformed file stores nothing")
    func importSkipsWhatCannotBeStored() throws {
        try withSandbox { (sandbox) throws in
            let file = sandbox.directory + "/other.cxf"
            let text = """
                {"version": {"major": 1, "minor": 0}, "exporterRpId": "exporter.example.com", "exporterDisplayName": "Other",
                 "timestamp": 1760000000, "accounts": [{"id": "AAEC", "username": "", "email": "u@example.com", "collections": [],
                 "items": [
                  {"id": "AQ", "title": "Example", "scope": {"urls": ["https://login.example.com/"], "androidApps": []},
                   "credentials": [{"type": "basic-auth", "username": {"fieldType": "string", "value": "carol"},
                                    "password": {"fieldType": "concealed-string", "value": "cxf-secret"}},
                                   {"type": "totp", "secret": "JBSWY3DPEHPK3PXP", "period": 30, "digits": 6, "algorithm": "sha1"}]},
                  {"id": "Ag", "title": "Passkey only", "credentials": [{"type": "passkey", "credentialId": "AA", "rpId": "example.com",
                   "username": "carol", "userDisplayName": "Carol", "userHandle": "AA", "key": "AA"}]},
                  {"id": "Aw", "title": "Wi-Fi", "credentials": [{"type": "passkey", "credentialId": "AB", "rpId": "x.example", "username": "",
                   "userDisplayName": "", "userHandle": "AA", "key": "AA"}]}
                 ]}]}
                """
            try Data(text.utf8).write(to: URL(fileURLWithPath: file))
            let dry = try sandbox.keychainctl(["import-credentials", file])
            #expect(dry.status == 0, "\(dry.stderr)")
            #expect(dry.stdout.contains("new       https://carol@login.example.com"), "\(dry.stdout)")
            #expect(dry.stdout.contains("left in \(file): 2 passkey credentials"), "\(dry.stdout)")
            #expect(dry.stdout.contains("left in \(file): 1 totp credential "), "\(dry.stdout)")
            #expect(!dry.stdout.contains("cxf-secret"))

            let broken = sandbox.directory + "/broken.cxf"
            try Data(#"{"version": {"major": 1, "minor": 0}, "accounts": []}"#.utf8).write(to: URL(fileURLWithPath: broken))
            let refused = try sandbox.keychainctl(["import-credentials", file, broken, "--apply"])
            #expect(refused.status == 1 && refused.stderr.contains("not a CXF document: no exporterRpId"), "\(refused.stderr)")
            #expect(try sandbox.keychainctl(["find-internet-password", "-s", "login.example.com"]).status == 44, "nothing stored")
        }
    }
}
