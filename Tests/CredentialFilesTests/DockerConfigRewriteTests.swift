import CredentialFiles
import Foundation
import Testing

/// `import-credentials --remove-source` on a Docker `config.json`: the secrets go, and nothing
/// else of the user's file changes (order, layout, escapes, numbers); a file that is not plain
/// JSON is refused with its line and cause, so the caller leaves it as it is.
@Suite("Docker config.json without its secrets")
struct DockerConfigRewriteTests {
    private func rewrite(_ text: String) throws -> String {
        let rewritten = try #require(try CredentialFileFormat.dockerConfig.contentAfterImport(Data(text.utf8), file: "config.json"))
        return String(decoding: rewritten, as: UTF8.self)
    }

    private func refusal(_ content: Data) -> CredentialFileError? {
        do {
            _ = try CredentialFileFormat.dockerConfig.contentAfterImport(content, file: "config.json")
            return nil
        } catch {
            return error
        }
    }

    @Test("a file as Docker writes it (tabs), with settings in no sorted order: only the secrets go, credsStore is added last")
    func dockerWrittenFile() throws {
        let original = """
            {
            \t"auths": {
            \t\t"https://index.docker.io/v1/": {
            \t\t\t"auth": "aHVidXNlcjpodWJwYXNz"
            \t\t},
            \t\t"ghcr.io": {
            \t\t\t"email": "me@example.com",
            \t\t\t"identitytoken": "idtok"
            \t\t},
            \t\t"registry.example": {}
            \t},
            \t"psFormat": "table {{.ID}}\\t{{.Names}}",
            \t"HttpHeaders": {
            \t\t"User-Agent": "Docker-Client/24.0.7 (linux) \\u00e9 \\ud83d\\ude00 Grüße ☃ C:\\\\Tools\\/x"
            \t},
            \t"plugins": {"buildx": {"retries": 3.5e2, "id": 123456789012345678901234567890123456789012, "tiny": -1e-999999}},
            \t"Aliases": {"builder": "buildx"}
            }

            """
        let expected = """
            {
            \t"auths": {
            \t\t"https://index.docker.io/v1/": {},
            \t\t"ghcr.io": {
            \t\t\t"email": "me@example.com"
            \t\t},
            \t\t"registry.example": {}
            \t},
            \t"psFormat": "table {{.ID}}\\t{{.Names}}",
            \t"HttpHeaders": {
            \t\t"User-Agent": "Docker-Client/24.0.7 (linux) \\u00e9 \\ud83d\\ude00 Grüße ☃ C:\\\\Tools\\/x"
            \t},
            \t"plugins": {"buildx": {"retries": 3.5e2, "id": 123456789012345678901234567890123456789012, "tiny": -1e-999999}},
            \t"Aliases": {"builder": "buildx"},
            \t"credsStore": "keychainkit"
            }

            """
        let before = try DockerConfigParser.parse(Data(original.utf8), file: "config.json")
        #expect(before.credentials.map(\.account) == ["<token>", "hubuser"])
        let rewritten = try rewrite(original)
        #expect(rewritten == expected, "\(rewritten)")
        #expect(try DockerConfigParser.parse(Data(rewritten.utf8), file: "config.json").credentials.isEmpty)
    }

    @Test("a compact file, a secret whose name is escaped, a credsStore already set, a member between two secrets")
    func compactFile() throws {
        let original = #"{"auths":{"a.example":{"\u0061uth":"dTpw","email":"x","password":"p","username":"u"}},"credsStore":"desktop"}"#
        #expect(try rewrite(original) == #"{"auths":{"a.example":{"email":"x"}},"credsStore":"desktop"}"#)
        let spaced = #"{ "auths" : { "b.example" : { "username" : "u", "password" : "p" } } }"#
        #expect(try rewrite(spaced) == #"{ "auths" : { "b.example" : {} }, "credsStore" : "keychainkit" }"#)
        #expect(try rewrite("{}") == #"{"credsStore": "keychainkit"}"#)
    }

    @Test("a comma written at the start of a line (found by FuzzDockerConfig): credsStore follows the file's layout, and the result parses")
    func leadingComma() throws {
        let original = "{\n  \"auths\": {\n    \"https://i.io\": {\"identitytoken\": \"t\"},\n    \"h.example\": { }} \n\n , \"crere\": \"desktop\"\n}\n"
        let rewritten = try rewrite(original)
        #expect(rewritten == "{\n  \"auths\": {\n    \"https://i.io\": {},\n    \"h.example\": { }} \n\n , \"crere\": \"desktop\", \"credsStore\": \"keychainkit\"\n}\n")
        _ = try DockerConfigParser.parse(Data(rewritten.utf8), file: "config.json")
    }

    @Test("a Windows copy keeps its CRLF line ends, and its byte order mark")
    func crlfFile() throws {
        let original = "\u{FEFF}{\r\n  \"auths\": {\r\n    \"ghcr.io\": {\r\n      \"auth\": \"dTpw\"\r\n    }\r\n  }\r\n}\r\n"
        #expect(try rewrite(original) == "\u{FEFF}{\r\n  \"auths\": {\r\n    \"ghcr.io\": {}\r\n  },\r\n  \"credsStore\": \"keychainkit\"\r\n}\r\n")
    }

    @Test("hostile files are refused with the line and the cause; a parse finds nothing either", arguments: [
        ("deep nesting", Data(("{\"auths\": {},\n\"x\": " + String(repeating: "[", count: 50_000)).utf8), 2, "nested more than 100 levels"),
        ("a second auth hiding behind the first", Data("{\"auths\": {\"r.example\": {\n\"auth\": \"\",\n\"auth\": \"dTpw\"}}}".utf8), 3,
         "same member name twice"),
        ("two auths objects", Data("{\"auths\": {},\n\n\"auths\": {\"r.example\": {\"auth\": \"dTpw\"}}}".utf8), 3, "same member name twice"),
        ("invalid UTF-8", Data("{\"auths\": {},\n\"x\": \"".utf8) + Data([0xFF, 0xFE]) + Data("\"}".utf8), 2, "not UTF-8"),
        ("a NUL byte", Data("{\"auths\": {},\n\n\"x\": \"\0\"}".utf8), 3, "NUL"),
        ("cut short", Data("{\"auths\": {\n\"r.example\": {\"auth\": \"dTpw\"}".utf8), 2, "ends inside a value"),
        ("a number where JSON has none", Data("{\"auths\": {},\n\"x\": NaN}".utf8), 2, "cannot start a value"),
        ("an array", Data("[{\"auths\": {}}]".utf8), 1, "not a JSON object"),
    ] as [(String, Data, Int, String)])
    func hostileFiles(name: String, content: Data, line: Int, cause: String) {
        let error = refusal(content)
        #expect(error?.line == line, "\(name): \(String(describing: error))")
        #expect(error?.reason.contains(cause) == true, "\(name): \(String(describing: error))")
        #expect(error.map { !"\($0)".contains("dTpw") } ?? true, "\(name): the error quotes no secret")
        #expect(throws: CredentialFileError.self, "\(name)") { try DockerConfigParser.parse(content, file: "config.json") }
    }

    @Test("huge and odd numbers stay as written, byte for byte")
    func numbersStayAsWritten() throws {
        let numbers = ["123456789012345678901234567890123456789012345678901234567890", "1e999999", "-0.0", "0.1000000000000000055511151231257827",
                       "-1E-400", "9007199254740993"]
        let original = "{\"auths\": {\"r.example\": {\"auth\": \"dTpw\"}}, \"n\": [" + numbers.joined(separator: ", ") + "]}"
        let rewritten = try rewrite(original)
        #expect(rewritten.contains("[" + numbers.joined(separator: ", ") + "]"), "\(rewritten)")
    }
}
