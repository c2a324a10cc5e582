import CredentialFiles
import Foundation
import Testing

/// CXF documents on bytes: what the export writes reads back the same; a hostile document is
/// refused with its cause. (The export and import through keychainctl: keychainctlTests.CXFExportTests.)
@Suite("CXF documents")
struct CXFDocumentTests {
    @Test("an export reads back as the same logins, with its members in alphabetical order")
    func exportReadsBack() throws {
        let logins = [
            ExchangedLogin(title: "Git at work", username: "bob", password: "p/w \"quoted\" ☃", urls: ["https://git.example.com:8443/org/repo"],
                           created: Date(timeIntervalSince1970: 1_700_000_000), modified: Date(timeIntervalSince1970: 1_700_000_100)),
            ExchangedLogin(title: "A note", note: "line one\nline two\ttabbed"),
        ]
        let document = try CXFDocument.export(logins, exporterRpId: "keychainkit.invalid", exporterDisplayName: "KeychainKit", at: Date(timeIntervalSince1970: 1_760_000_000))
        let contents = try CXFDocument.read(document, file: "export.cxf")
        #expect(contents.logins == logins)
        #expect(contents.skipped.isEmpty)
        let text = String(decoding: document, as: UTF8.self)
        #expect(text.hasPrefix("{\n  \"accounts\" : [\n"), "\(text.prefix(40))")
        #expect(text.contains("\"timestamp\" : 1760000000,\n  \"version\" : {\n    \"major\" : 1,\n    \"minor\" : 0\n  }\n}"), "\(text.suffix(80))")
        #expect(text.contains("https://git.example.com:8443/org/repo"), "slashes are not escaped")
    }

    private func refusal(_ text: String) -> CredentialFileError? {
        do {
            _ = try CXFDocument.read(Data(text.utf8), file: "in.cxf")
            return nil
        } catch {
            return error
        }
    }

    private static let header = #""version": {"major": 1, "minor": 0}, "exporterRpId": "x.example", "exporterDisplayName": "X", "timestamp": 1760000000"#

    @Test("hostile documents: the same member twice, a time beyond any date, a fractional version, not JSON")
    func hostileDocuments() {
        let twice = "{\(Self.header),\n\"accounts\": [],\n\"accounts\": [{}]}"
        #expect(refusal(twice).map { $0.line == 3 && $0.reason.contains("same member name twice") } == true, "\(String(describing: refusal(twice)))")
        let farTime = #"{\#(Self.header), "accounts": [{"id": "AA", "username": "", "email": "", "collections": [], "items": [{"id": "AQ", "title": "T", "creationAt": 1e400, "credentials": [{"type": "note", "content": {"fieldType": "string", "value": "n"}}]}]}]}"#
        #expect(refusal(farTime)?.reason.contains("creationAt is not a time") == true, "\(String(describing: refusal(farTime)))")
        let fractional = #"{"version": {"major": 1.5, "minor": 0}, "exporterRpId": "x", "exporterDisplayName": "X", "timestamp": 1, "accounts": []}"#
        #expect(refusal(fractional)?.reason.contains("no version") == true)
        #expect(refusal(#"{"version": {"major": 1.0, "minor": 0e0}, "exporterRpId": "x", "exporterDisplayName": "X", "timestamp": 1, "accounts": []}"#) == nil,
                "1.0 is the integer 1, as Foundation read it")
        let broken = "{\(Self.header),\n\"accounts\": [}"
        #expect(refusal(broken).map { $0.line == 2 && $0.reason.hasPrefix("not a CXF document: not JSON") } == true, "\(String(describing: refusal(broken)))")
    }
}
