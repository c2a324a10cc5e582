import CredentialFiles
import Foundation

/// The invariants every `import-credentials` reader keeps on arbitrary bytes, shared by the five
/// credential-file targets: it returns credentials or a `CredentialFileError`, never crashes; an
/// error names the file and a line of the input; every credential starts on a line of the input.
/// For readers that can rewrite a file without its secrets (`--remove-source`), the rewritten file
/// parses again and holds no credential.
public func checkCredentialReader(
    _ bytes: UnsafePointer<UInt8>?, _ count: Int,
    parse: (Data) throws(CredentialFileError) -> ParsedCredentialFile,
    removingSecrets: ((Data) throws(CredentialFileError) -> Data)? = nil
) -> Int32 {
    guard let bytes else { return 0 }
    let data = Data(bytes: bytes, count: count)
    let lineCount = data.reduce(1) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
    let parsed: ParsedCredentialFile
    do {
        parsed = try parse(data)
    } catch {
        guard (1...lineCount).contains(error.line), error.file == "fuzz" else { fatalError("an error names no line of the input") }
        return 0
    }
    for credential in parsed.credentials where !(1...lineCount).contains(credential.line) {
        fatalError("a credential at a line the input does not have")
    }
    guard let removingSecrets else { return 0 }
    let rewritten: Data
    do { rewritten = try removingSecrets(data) } catch { fatalError("a file that parsed could not be rewritten: \(error)") }
    let again: ParsedCredentialFile
    do { again = try parse(rewritten) } catch { fatalError("the rewritten file does not parse: \(error)") }
    guard again.credentials.isEmpty else { fatalError("the rewritten file still holds credentials") }
    return 0
}
