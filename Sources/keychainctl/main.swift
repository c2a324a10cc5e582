import KeychainToolSupport
import Foundation

// keychainctl: a security(1)-style command line for the keychain. It sees every access group,
// as `security` does; KEYCHAINKIT_TESTING_KDF=1 (test suites only) creates password keychains
// with a deliberately cheap key derivation.
ToolEnvironment.grantAllAccessGroups()
if ToolEnvironment.testingKDFRequested { ToolEnvironment.useTestingKDF() }
Keychainctl.main(SecretArguments.rewrite(Array(CommandLine.arguments.dropFirst())))
