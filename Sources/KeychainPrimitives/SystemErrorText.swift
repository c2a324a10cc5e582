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
    package static func of(_ error: any Error) -> String {
        if let cocoa = error as? CocoaError { return text(of: cocoa) }
        if let posix = error as? POSIXError { return text(of: posix.code) }
        return String(describing: error)
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
