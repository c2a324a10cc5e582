import Foundation

/// Absolute paths of files named on the command line (messages, the default `.env` service, seal folders).
enum KeychainLocationPath {
    /// `path` made absolute against the working directory.
    static func absolute(_ path: String) -> String {
        path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
    }
}
