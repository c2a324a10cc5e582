import CFuzzDriver
import Foundation
@testable import KeychainLinux
@testable import SecretService

/// The Secret Service's argument decoding: the first byte picks the signature of one of the
/// provider's calls, the rest is that call's body (little-endian, as a message body starts
/// 8-aligned). The values are read as the daemon reads them (``DBusArguments``: strings, object
/// paths, attribute maps `a{ss}`, property maps `a{sv}`, secret structs `(oayays)`). What decodes
/// must re-encode to exactly the input (D-Bus marshalling is canonical: zero padding, booleans
/// 0 or 1), and no more than the reader's value limit may come out of one body.
func fuzzSecretServiceArguments(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    guard let bytes, count > 0 else { return 0 }
    let signatures = ["sv", "a{sv}s", "a{ss}", "ao", "aoo", "so", "a{sv}(oayays)b", "(oayays)", "ssv", "s", "o", "as", "av"]
    let signature = signatures[Int(bytes[0]) % signatures.count]
    let body = Array(UnsafeBufferPointer(start: bytes + 1, count: count - 1))
    var reader = DBusReader(body, littleEndian: true)
    guard let values = try? reader.readAll(signature: signature), reader.isAtEnd else { return 0 }  // rejection is expected

    var writer = DBusWriter()
    for value in values { writer.write(value) }
    guard writer.bytes == body else { fatalError("\(signature): a body that decodes re-encodes differently") }

    let arguments = DBusArguments(values: values)
    do {
        try arguments.require(signature)
    } catch {
        fatalError("\(signature): decoded values of another signature")
    }
    for (index, value) in values.enumerated() {
        switch value.signature {
        case "a{ss}":
            guard let map = DBusArguments.stringDictionary(value) else { fatalError("a{ss} not read as a map") }
            guard map.count <= DBusReader.maximumValues else { fatalError("more entries than values") }
        case "a{sv}":
            _ = try? arguments.variantDictionary(index)  // a map of any content: only a crash is a bug
        case "ao":
            guard let paths = try? arguments.objectPaths(index), paths.count == value.texts?.count else { fatalError("ao not read") }
        case "(oayays)":
            if case .structure(let fields) = value {
                guard fields.count == 4, fields[1].bytes != nil, fields[2].bytes != nil else { fatalError("a secret struct lost its byte arrays") }
            }
        case "v":
            _ = try? arguments.variant(index)
        default:
            continue
        }
    }
    return 0
}

@main
struct FuzzSecretServiceArgumentsMain {
    static func main() {
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv) { bytes, count in fuzzSecretServiceArguments(bytes, count) })
    }
}
