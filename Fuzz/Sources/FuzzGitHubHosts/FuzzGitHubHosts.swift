import CFuzzDriver
import CredentialFileFuzzing
import CredentialFiles
import Foundation

/// The GitHub CLI hosts.yml reader of `keychainctl import-credentials` on arbitrary bytes, checked against the
/// invariants every credential-file reader keeps (``checkCredentialReader(_:_:parse:removingSecrets:)``).
@main
struct FuzzGitHubHostsMain {
    static func main() {
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv) { bytes, count in
            checkCredentialReader(bytes, count,
                                  parse: { (data: Data) throws(CredentialFileError) in try GitHubHostsParser.parse(data, file: "fuzz") },
                                  removingSecrets: { (data: Data) throws(CredentialFileError) in try GitHubHostsParser.removingTokens(data, file: "fuzz") })
        })
    }
}
