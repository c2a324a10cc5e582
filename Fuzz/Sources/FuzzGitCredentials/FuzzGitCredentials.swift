import CFuzzDriver
import CredentialFileFuzzing
import CredentialFiles
import Foundation

/// The git-credentials reader of `keychainctl import-credentials` on arbitrary bytes, checked against the
/// invariants every credential-file reader keeps (``checkCredentialReader(_:_:parse:removingSecrets:)``).
@main
struct FuzzGitCredentialsMain {
    static func main() {
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv) { bytes, count in
            checkCredentialReader(bytes, count,
                                  parse: { (data: Data) throws(CredentialFileError) in try GitCredentialsParser.parse(data, file: "fuzz") })
        })
    }
}
