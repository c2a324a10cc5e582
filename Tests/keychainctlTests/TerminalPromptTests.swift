import Foundation
import Testing

/// Prompts on a terminal: secrets are typed without echo, a locked keychain asks for its password.
@Suite("keychainctl on a terminal")
struct TerminalPromptTests {
    @Test("-w last on a terminal prompts without echo; the secret never shows on the screen")
    func noEchoPrompt() throws {
        try withSandbox { (sandbox) throws in
            let session = try sandbox.keychainctlOnTerminal(["add-generic-password", "-a", "t", "-s", "tty", "-w"])
            #expect(session.type("typed-secret\n", after: "password data for new item: "))
            #expect(session.waitForExit() == 0)
            #expect(!session.text.contains("typed-secret"), "echo was on: \(session.text)")
            #expect(try sandbox.keychainctl(["find-generic-password", "-a", "t", "-w"]).stdout == "typed-secret\n")
        }
    }

    @Test("a locked keychain asks for its password on a terminal, then reads; the unlock is shared")
    func lockedPrompts() throws {
        try withSandbox { (sandbox) throws in
            let path = try sandbox.createKeychain("tty.keychain-db", password: "pw")
            #expect(try sandbox.keychainctl(["add-generic-password", "-a", "a", "-s", "s", path, "-w"], stdin: "shown\n").status == 0)
            #expect(try sandbox.keychainctl(["lock-keychain", path]).status == 0)

            let wrong = try sandbox.keychainctlOnTerminal(["find-generic-password", "-a", "a", "-w", path])
            #expect(wrong.type("nope\n", after: "password to unlock \"\(path)\": "))
            #expect(wrong.waitForExit() == 51)
            #expect(wrong.text.contains("The user name or passphrase you entered is not correct."))

            let session = try sandbox.keychainctlOnTerminal(["find-generic-password", "-a", "a", "-w", path])
            #expect(session.type("pw\n", after: "password to unlock \"\(path)\": "))
            #expect(session.waitForExit() == 0)
            #expect(session.text.contains("shown"))
            #expect(!session.text.contains("pw\r\n") && !session.text.hasSuffix("pw"), "the password is not echoed")
            #expect(try sandbox.keychainctl(["find-generic-password", "-a", "a", "-w", path]).stdout == "shown\n")
        }
    }

    @Test("create-keychain on a terminal asks twice; a mismatch creates nothing")
    func createAsksTwice() throws {
        try withSandbox { (sandbox) throws in
            let path = sandbox.directory + "/typed.keychain-db"
            let mismatch = try sandbox.keychainctlOnTerminal(["create-keychain", path])
            #expect(mismatch.type("one\n", after: "password for new keychain"))
            #expect(mismatch.type("two\n", after: "Retype password for new keychain"))
            #expect(mismatch.waitForExit() == 1)
            #expect(mismatch.text.contains("the passwords do not match"))
            #expect(!FileManager.default.fileExists(atPath: path))

            let session = try sandbox.keychainctlOnTerminal(["create-keychain", path])
            #expect(session.type("same\n", after: "password for new keychain"))
            #expect(session.type("same\n", after: "Retype password for new keychain"))
            #expect(session.waitForExit() == 0)
            #expect(FileManager.default.fileExists(atPath: path))
            #expect(try sandbox.keychainctl(["delete-keychain", path]).status == 0)
        }
    }
}
