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

/// The one place KeychainKit reads its process's environment.
///
/// Everything else gets its values from here, or, for KeychainKit's own variables (`KEYCHAINKIT_*`,
/// the XDG directories, `CREDENTIALS_DIRECTORY`), from `KeychainConfiguration`, which reads them
/// once per process through this type. Named variables are read with one `getenv` each:
/// `ProcessInfo.environment` copies and parses the whole environment, which was a third of a
/// `SecItemCopyMatching` in a process with an ordinary environment. The whole environment is
/// copied only for a child process that must inherit it (git, a program `keychainctl exec` runs).
package enum ProcessEnvironment {
    /// The value of the variable `name`, or nil when it is not set (an empty value is returned as "").
    package static func value(of name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    /// The variables among `names` that are set, with their values.
    package static func values(of names: [String]) -> [String: String] {
        var values: [String: String] = [:]
        for name in names {
            if let value = value(of: name) { values[name] = value }
        }
        return values
    }

    /// A copy of the whole environment, for a child process that inherits it with changes.
    package static func all() -> [String: String] {
        ProcessInfo.processInfo.environment
    }

    /// The process's own `NAME=value` entries as the C library keeps them (nil-terminated), for a
    /// child that inherits exactly this environment (`posix_spawn`), or this environment plus
    /// variables built as C strings (`execve`). Valid until the environment is next changed.
    package static var entries: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?> {
        #if canImport(Darwin)
        _NSGetEnviron().pointee!  // Darwin exports no `environ` to Swift
        #else
        environ
        #endif
    }
}
