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
import KeychainVocabulary

/// A keychain password kept in a file for headless use (`KEYCHAINKIT_PASSWORD_FILE`).
///
/// The file must be a regular file that only its owner can access (mode 0600 or 0400), owned by
/// this user or by root (secret mounts in containers are often root's): a password file others
/// can read has leaked already, and one others can write lets them choose the password a new
/// keychain gets. A symlink is followed — secret stores commonly link the file into place — but
/// the checks apply to the file actually opened (`fstat`), not to the name.
package enum PasswordFile {
    /// The largest password file read (a password, not a document).
    static let maximumSize = 64 * 1024

    /// The file's whole content. The bytes read pass through one buffer, zeroed before it is
    /// released. Throws `passwordFileMissing` or `passwordFileUnsafe` (errSecNotAvailable) with the reason (never the content) when the file cannot be
    /// read or breaks a rule above; `origin` names the source in those reasons. With
    /// `followingLinks` false, a symbolic link at `path` is refused rather than followed (a
    /// systemd credential: systemd writes each one as a regular file, so a link was put there by
    /// something else, and would let whoever controls its target choose the password).
    package static func read(_ path: String, origin: String, followingLinks: Bool = true) throws(KeychainStoreError) -> Data {
        func unsafe(_ problem: String) -> KeychainStoreError {
            KeychainStoreError(.passwordFileUnsafe(origin: origin, path: path, problem: problem))
        }
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | (followingLinks ? 0 : O_NOFOLLOW))
        guard fd >= 0 else {
            if !followingLinks, errno == ELOOP {
                throw unsafe("is a symbolic link, which systemd never makes a credential; remove it and pass the password "
                             + "with LoadCredential= or LoadCredentialEncrypted= in the unit (systemd.exec(5), \"Credentials\")")
            }
            throw KeychainStoreError(.passwordFileMissing(origin: origin, path: path), systemErrno: errno)
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw unsafe("is not a regular file")
        }
        guard info.st_uid == geteuid() || info.st_uid == 0 else {
            throw unsafe("belongs to another user; it must be yours (or root's)")
        }
        guard info.st_mode & 0o077 == 0 else {
            throw unsafe("is accessible by group or others (mode \(String(info.st_mode & 0o777, radix: 8))); run chmod 600 on it")
        }
        var content = Data(capacity: maximumSize)
        var buffer = [UInt8](repeating: 0, count: 4096)
        defer { buffer.withUnsafeMutableBytes { _ = $0.initializeMemory(as: UInt8.self, repeating: 0) } }
        while true {
            let count = buffer.withUnsafeMutableBytes { readChunk(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                content.resetBytes(in: 0..<content.count)
                let code = errno
                throw KeychainStoreError(.passwordFileUnsafe(origin: origin, path: path, problem: "cannot be read"), systemErrno: code)
            }
            if count == 0 { return content }
            guard content.count + count <= maximumSize else {
                content.resetBytes(in: 0..<content.count)
                throw unsafe("is larger than a password can be (\(maximumSize / 1024) KiB)")
            }
            content.append(contentsOf: buffer[0..<count])
        }
    }
}

/// `read(2)`; a name of its own because inside `PasswordFile` `read` is its method. At file scope
/// the name is the C library's, whichever one `import Foundation` brings (Glibc, Musl, Darwin).
private func readChunk(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(fd, buffer, count)
}
