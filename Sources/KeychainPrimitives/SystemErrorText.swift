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

/// A readable line for an error that reaches a user, in place of Foundation's
/// `localizedDescription`, which FoundationEssentials lacks. `String(describing:)` on a
/// `CocoaError` from `FileManager` or `Data` is a dump of its code and user info; this gives the
/// file and the C library's text for the cause instead (`/a/b: Permission denied`), which is what
/// a user needs to fix it. Our own errors keep their own description.
package enum SystemErrorText {
    /// The error as a user reads it: for a `CocoaError`, its file (if it names one) and the cause
    /// (the text of its underlying `POSIXError`, else of its code); for a `POSIXError`, the C
    /// library's text; for any other error, its description.
    ///
    /// A `DecodingError` or `EncodingError` reads as what is wrong and where (the coding path: the
    /// names of the fields, never a value), without the decoder's debug description, which can
    /// quote the data. A caller decoding a secret names no path at all (KeychainKit's value coding).
    package static func of(_ error: any Error) -> String {
        if let cocoa = error as? CocoaError { return text(of: cocoa) }
        if let posix = error as? POSIXError { return text(of: posix.code) }
        if let decoding = error as? DecodingError { return text(of: decoding) }
        if let encoding = error as? EncodingError { return text(of: encoding) }
        return String(describing: error)
    }

    private static func text(of error: DecodingError) -> String {
        switch error {
        case .typeMismatch(let type, let context):
            return "\(place(context.codingPath)) is not of the expected type (\(type))"
        case .valueNotFound(let type, let context):
            return "\(place(context.codingPath)) has no value where one is needed (\(type))"
        case .keyNotFound(let key, let context):
            return "“\(key.stringValue)” is missing from \(place(context.codingPath))"
        case .dataCorrupted(let context):
            return "\(place(context.codingPath)) is not in the expected format"
        @unknown default:
            return "the data is not in the expected format"
        }
    }

    private static func text(of error: EncodingError) -> String {
        switch error {
        case .invalidValue(_, let context):
            return "\(place(context.codingPath)) cannot be encoded"
        @unknown default:
            return "the value cannot be encoded"
        }
    }

    /// A coding path as a user finds it in the file: `the field “auths.example.org”`, `the
    /// field “items[2].name”`, or `the data` at the top.
    private static func place(_ path: [any CodingKey]) -> String {
        guard !path.isEmpty else { return "the data" }
        var text = ""
        for key in path {
            if let index = key.intValue, key.stringValue == "Index \(index)" || key.stringValue == String(index) {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : "." + key.stringValue
            }
        }
        return "the field “\(text)”"
    }

    private static func text(of error: CocoaError) -> String {
        let cause: String
        if let underlying = error.underlying as? POSIXError {
            cause = text(of: underlying.code)
        } else if let underlying = error.underlying, !(underlying is CocoaError) {
            cause = of(underlying)
        } else {
            cause = text(of: error.code)
        }
        guard let path = error.filePath ?? error.url.map({ $0.isFileURL ? $0.path : $0.absoluteString }), !path.isEmpty else { return cause }
        return "\(path): \(cause)"
    }

    /// The C library's text (`strerror`) for a POSIX error code.
    private static func text(of code: POSIXErrorCode) -> String {
        String(cString: strerror(code.rawValue))
    }

    /// Foundation's text for the file-system codes that come without an underlying POSIX error.
    private static func text(of code: CocoaError.Code) -> String {
        switch code {
        case .fileNoSuchFile, .fileReadNoSuchFile: return text(of: .ENOENT)
        case .fileReadNoPermission, .fileWriteNoPermission: return text(of: .EACCES)
        case .fileWriteFileExists: return text(of: .EEXIST)
        case .fileWriteOutOfSpace: return text(of: .ENOSPC)
        case .fileWriteVolumeReadOnly: return text(of: .EROFS)
        case .fileReadTooLarge: return text(of: .EFBIG)
        case .fileReadCorruptFile: return "the file is not in the expected format"
        case .fileReadInapplicableStringEncoding, .fileWriteInapplicableStringEncoding: return "the text is not in the expected encoding"
        case .fileReadUnsupportedScheme, .fileWriteUnsupportedScheme: return "the URL is not a file"
        case .fileReadInvalidFileName, .fileWriteInvalidFileName: return "the file name is not valid"
        default: return "the operation failed (NSCocoaErrorDomain error \(code.rawValue))"
        }
    }
}
