import Foundation

// keychainctl: a security(1)-style command line for the keychain. It sees every access group,
// as `security` does; KEYCHAINKIT_TESTING_KDF=1 (test suites only) creates password keychains
// with a deliberately cheap key derivation.
// Keychainctl.environment is the process's configuration, made here at first use.
Keychainctl.environment.grantAllAccessGroups()
if Keychainctl.environment.testingKDFRequested { Keychainctl.environment.useTestingKDF() }
#if os(Linux)
ConsentTerminal.installIfTerminal()  // the keychain service's consent prompt, on the controlling terminal
#endif
Keychainctl.main(SecretArguments.rewrite(Array(CommandLine.arguments.dropFirst())))
