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

/// Which mode keeps this process's keychain calls, and what the system adds to it: the facts
/// `SecKeychainCopyStorageSecurity` (and `keychainctl show-keychain-info --security`) report so a
/// user can see what the keychain protects against here.
package enum ProcessIsolation {
    /// Where SecItem calls are answered.
    package enum Mode: String, Sendable {
        /// In this process, on a keychain file of this user (`KEYCHAINKIT_SERVICE_SOCKET` unset).
        case embedded
        /// By the keychain service, over its socket, from the caller's kernel-verified identity.
        case service

        /// What the mode protects against, in a sentence.
        package var protects: String {
            switch self {
            case .embedded:
                return "other users (file permissions and encryption at rest); not your other programs, which can read the "
                    + "keychain file and claim any access group"
            case .service:
                return "other users and your other programs: the files and keys are the service's, and each program "
                    + "reaches only its own access groups and those granted to it"
            }
        }
    }

    /// The mode a process configured with `serviceSocketPath` runs in.
    package static func mode(serviceSocketPath: String?) -> Mode { serviceSocketPath == nil ? .embedded : .service }

    /// `kernel.yama.ptrace_scope` (0: any process may attach to another of its user; 1: only to
    /// its descendants; 2: only with `CAP_SYS_PTRACE`; 3: never), or nil when the kernel has no
    /// Yama (then any process of a user may attach to any other of that user, as with 0).
    package static func ptraceScope(file: String = "/proc/sys/kernel/yama/ptrace_scope") -> Int? {
        guard let bytes = contents(of: file) else { return nil }
        let text = String(decoding: bytes, as: UTF8.self).unicodeScalars
        // Foundation's `.whitespacesAndNewlines`, trimmed at both ends.
        let isSpace: (Unicode.Scalar) -> Bool = { $0.properties.isWhitespace }
        guard let first = text.firstIndex(where: { !isSpace($0) }), let last = text.lastIndex(where: { !isSpace($0) }) else { return nil }
        return Int(String(text[first...last]))
    }

    /// The whole of a small file (a /proc or /sys setting), read to its end; nil when it cannot
    /// be opened or read.
    private static func contents(of path: String) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 256)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { return bytes }
            if count < 0 {
                if errno == EINTR { continue }
                return nil
            }
            bytes += buffer[..<count]
        }
    }

    /// What `scope` (``ptraceScope(file:)``) means for the service's trust in a program it verified.
    package static func ptraceMeaning(_ scope: Int?) -> String {
        switch scope {
        case nil: return "no Yama: any program of yours can attach to another of yours and act for it; the service cannot stop that"
        case 0?: return "0: any program of yours can attach to another of yours and act for it; set it to 1 or more"
        case 1?: return "1: a program can attach only to its own descendants"
        case 2?: return "2: only a program with CAP_SYS_PTRACE can attach"
        case let other?: return "\(other): no program can attach"
        }
    }
}
