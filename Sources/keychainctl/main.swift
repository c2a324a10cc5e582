import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// keychainctl: a security(1)-style command line for the keychain. It sees every access group,
// as `security` does; KEYCHAINKIT_TESTING_KDF=1 (test suites only) creates password keychains
// with a deliberately cheap key derivation.
let arguments = SecretArguments.rewrite(Array(CommandLine.arguments.dropFirst()))
// The hot commands skip ArgumentParser's reflection of the command tree (HotCommand); the same
// arguments mean the same either way.
let hotCommand = HotCommand.recognise(arguments)
// Keychainctl.environment is the process's configuration, made here at first use. `--version`
// touches no keychain, so it does not pay for reading the configuration (docs/PERFORMANCE.md, "Start-up").
if hotCommand != .version {
    Keychainctl.environment.grantAllAccessGroups()
    if Keychainctl.environment.testingKDFRequested { Keychainctl.environment.useTestingKDF() }
    #if os(Linux)
    ConsentTerminal.install()  // the keychain service's consent prompt, on the controlling terminal (probed when needed)
    #endif
}
if let hot = hotCommand {
    do {
        try hot.run()
    } catch let code as ExitCode {
        exit(code.rawValue)  // the failure is already on standard error
    } catch {
        Keychainctl.exit(withError: error)
    }
} else {
    Keychainctl.main(arguments)
}
