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
import KeychainPrimitives

/// Absolute paths of files named on the command line (messages, the default `.env` service, seal folders).
enum KeychainLocationPath {
    /// `path` made absolute against the working directory.
    static func absolute(_ path: String) -> String {
        path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
    }

    /// The absolute `path` as Foundation's `NSString.standardizingPath` gives it on Linux (which
    /// FoundationEssentials lacks), so that a path a sync circle recorded before reads the same:
    /// empty and `.` components dropped, `..` removing the component before it, each component
    /// that is a symbolic link replaced by its target (one level), then a leading `/private`
    /// dropped when the rest names an existing file. A relative target is joined to the link's
    /// folder (Foundation on Linux joined it to the working directory, naming the wrong folder).
    static func standardized(_ path: String) -> String {
        guard path.hasPrefix("/") else { return path }
        var resolved = "/"
        for component in path.split(separator: "/", omittingEmptySubsequences: true) {
            switch component {
            case ".": continue
            case "..": resolved = FilePaths.deletingLastComponent(resolved)
            default:
                resolved = appending(String(component), to: resolved)
                if let target = symbolicLinkTarget(resolved) {
                    resolved = target.hasPrefix("/") ? target : appending(target, to: FilePaths.deletingLastComponent(resolved))
                }
            }
        }
        if resolved.hasPrefix("/private/"), FileManager.default.fileExists(atPath: String(resolved.dropFirst("/private".count))) {
            resolved = String(resolved.dropFirst("/private".count))
        }
        return resolved
    }

    /// `component` joined to `folder` with one slash between them.
    private static func appending(_ component: String, to folder: String) -> String {
        folder.hasSuffix("/") ? folder + component : folder + "/" + component
    }

    /// What the symbolic link at `path` points to; nil when `path` is not a symbolic link (or
    /// cannot be read, as Foundation then keeps the path as it is).
    private static func symbolicLinkTarget(_ path: String) -> String? {
        var status = stat()
        guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFLNK else { return nil }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink(path, &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
