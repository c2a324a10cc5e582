import CFuzzDriver
import CredentialFiles
import Foundation

/// The git-credentials reader of `keychainctl import-credentials` on arbitrary bytes: it returns
/// credentials or a `CredentialFileError`, never crashes; an error names a line of the input;
/// every credential starts on a line of the input.
func fuzzGitCredentials(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    guard let bytes else { return 0 }
    let data = Data(bytes: bytes, count: count)
    let lineCount = data.reduce(1) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
    let parsed: ParsedCredentialFile
    do {
        parsed = try GitCredentialsParser.parse(data, file: "fuzz")
    } catch {
        guard (1...lineCount).contains(error.line), error.file == "fuzz" else { fatalError("an error names no line of the input") }
        return 0
    }
    for credential in parsed.credentials where !(1...lineCount).contains(credential.line) {
        fatalError("a credential at a line the input does not have")
    }
    return 0
}

@main
struct FuzzGitCredentialsMain {
    static func main() {
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv) { bytes, count in fuzzGitCredentials(bytes, count) })
    }
}
