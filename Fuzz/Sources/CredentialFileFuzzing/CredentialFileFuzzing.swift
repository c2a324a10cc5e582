import CredentialFiles
import Foundation

/// The invariants every `import-credentials` reader keeps on arbitrary bytes, shared by the five
/// credential-file targets: it returns credentials or a `CredentialFileError`, never crashes; an
/// error names the file and a line of the input; every credential starts on a line of the input.
/// For readers that can rewrite a file without its secrets (`--remove-source`), the rewritten file
/// parses again and holds no credential. The same file with Windows line ends (every LF made CRLF)
/// reads the same: the same credentials at the same lines, or an error at the same line.
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
        checkCRLFReadsTheSame(data, parse: parse, as: .failure(error))
        return 0
    }
    checkCRLFReadsTheSame(data, parse: parse, as: .success(parsed))
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

/// The input with every LF made CRLF, when it has no CR of its own, must read as `expected` does:
/// the same credentials and leftovers, or an error at the same line (its wording may differ).
private func checkCRLFReadsTheSame(_ data: Data, parse: (Data) throws(CredentialFileError) -> ParsedCredentialFile,
                                   as expected: Result<ParsedCredentialFile, CredentialFileError>) {
    guard !data.contains(UInt8(ascii: "\r")), data.contains(UInt8(ascii: "\n")) else { return }
    var crlf = Data(capacity: data.count * 2)
    for byte in data {
        if byte == UInt8(ascii: "\n") { crlf.append(UInt8(ascii: "\r")) }
        crlf.append(byte)
    }
    let again: Result<ParsedCredentialFile, CredentialFileError>
    do { again = .success(try parse(crlf)) } catch { again = .failure(error) }
    switch (expected, again) {
    case (.success(let lf), .success(let windows)) where lf == windows: return
    case (.failure(let lf), .failure(let windows)) where lf.line == windows.line: return
    default: fatalError("the file with CRLF line ends reads differently: LF \(summary(expected)), CRLF \(summary(again))")
    }
}

/// Lines only: what a parser found, without any secret.
private func summary(_ result: Result<ParsedCredentialFile, CredentialFileError>) -> String {
    switch result {
    case .success(let parsed): "credentials at lines \(parsed.credentials.map(\.line)), \(parsed.leftovers.count) leftovers"
    case .failure(let error): "error at line \(error.line): \(error.reason)"
    }
}
