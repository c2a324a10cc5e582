import Foundation
import Testing

/// add/find/delete-internet-password, each command its own process.
@Suite("keychainctl internet passwords")
struct InternetPasswordTests {
    @Test("add with protocol, port and path; find by server prints them; JSON names them; delete")
    func addFindDelete() throws {
        try withSandbox { (sandbox) throws in
            let add = try sandbox.keychainctl(["add-internet-password", "-a", "deploy", "-s", "git.example.com", "-r", "https",
                                               "-P", "8443", "-p", "team/repo.git", "-w"], stdin: "pat-123\n")
            #expect(add.status == 0, "\(add.stderr)")
            let find = try sandbox.keychainctl(["find-internet-password", "-s", "git.example.com"])
            #expect(find.status == 0)
            #expect(find.stdout.contains("class: \"inet\""))
            #expect(find.stdout.contains("\"srvr\"<blob>=\"git.example.com\""))
            #expect(find.stdout.contains("\"ptcl\"<uint32>=\"htps\""))
            #expect(find.stdout.contains("\"port\"<uint32>=8443"))
            #expect(find.stdout.contains("\"path\"<blob>=\"team/repo.git\""))
            #expect(find.stdout.contains("\"labl\"<blob>=\"git.example.com\""), "the label defaults to the server")

            #expect(try sandbox.keychainctl(["find-internet-password", "-s", "git.example.com", "-r", "htps", "-w"]).stdout == "pat-123\n")
            #expect(try sandbox.keychainctl(["find-internet-password", "-s", "git.example.com", "-r", "http"]).status == 44)
            #expect(try sandbox.keychainctl(["find-internet-password", "-s", "git.example.com", "-P", "443"]).status == 44)

            let json = try sandbox.keychainctl(["find-internet-password", "-a", "deploy", "--json", "-g"])
            let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
            let attributes = try #require(object["attributes"] as? [String: Any])
            #expect(attributes["server"] as? String == "git.example.com")
            #expect(attributes["protocol"] as? String == "htps")
            #expect(attributes["port"] as? Int == 8443)
            #expect(object["password"] as? String == "pat-123")

            #expect(try sandbox.keychainctl(["add-internet-password", "-a", "deploy", "-s", "git.example.com", "-r", "https",
                                             "-P", "8443", "-p", "team/repo.git", "-w"], stdin: "again\n").status == 45)
            #expect(try sandbox.keychainctl(["add-internet-password", "-U", "-a", "deploy", "-s", "git.example.com", "-r", "https",
                                             "-P", "8443", "-p", "team/repo.git", "-w"], stdin: "rotated\n").status == 0)
            #expect(try sandbox.keychainctl(["find-internet-password", "-s", "git.example.com", "-w"]).stdout == "rotated\n")

            let delete = try sandbox.keychainctl(["delete-internet-password", "-s", "git.example.com", "-a", "deploy"])
            #expect(delete.status == 0)
            #expect(delete.stdout.hasSuffix("password has been deleted.\n"))
            let gone = try sandbox.keychainctl(["find-internet-password", "-s", "git.example.com"])
            #expect(gone.status == 44)
            #expect(gone.stderr == "keychainctl: find-internet-password: The specified item could not be found in the keychain.\n")
        }
    }

    @Test("a bad port or protocol is a usage error (64)")
    func validation() throws {
        try withSandbox { (sandbox) throws in
            let port = try sandbox.keychainctl(["find-internet-password", "-s", "h", "-P", "70000"])
            #expect(port.status == 64)
            #expect(port.stderr.contains("The port must be between 0 and 65535."))
            #expect(try sandbox.keychainctl(["find-internet-password", "-s", "h", "-r", ""]).status == 64)
        }
    }
}
