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

/// The code a process runs besides its executable: every file mapped executable in
/// `/proc/<pid>/maps` (shared libraries, an `LD_PRELOAD`ed one, a `dlopen`ed plugin). A library
/// its user could change runs the user's code inside the program, so a program with one loaded
/// cannot be vouched for, however trustworthy its executable.
enum MappedCode {
    /// One executable file mapping: the path the kernel shows and the file's device and inode.
    struct Mapping: Equatable {
        var path: String
        var device: UInt64
        var inode: UInt64
    }

    /// The executable file mappings in the text of a `/proc/<pid>/maps` file, each file once.
    /// Lines are `start-end perms offset major:minor inode path`; anonymous and special mappings
    /// (`[vdso]`, `[stack]`, inode 0) are skipped. A path the kernel marks ` (deleted)` is kept
    /// with that suffix, so it never matches a file on disk.
    static func executableMappings(inMaps text: String) -> [Mapping] {
        var seen = Set<String>()
        var mappings: [Mapping] = []
        for line in text.split(separator: "\n") {
            // The path is everything after the fifth field, and may contain spaces.
            var fields: [Substring] = []
            var rest = line[...]
            while fields.count < 5 {
                rest = rest.drop(while: { $0 == " " })
                guard let end = rest.firstIndex(of: " ") else { fields.append(rest); rest = ""; break }
                fields.append(rest[..<end])
                rest = rest[end...]
            }
            guard fields.count == 5, fields[1].contains("x") else { continue }
            let path = String(rest.drop(while: { $0 == " " }))
            guard path.hasPrefix("/"), let inode = UInt64(fields[4]), inode != 0 else { continue }
            let deviceParts = fields[3].split(separator: ":")
            guard deviceParts.count == 2, let major = UInt64(deviceParts[0], radix: 16), let minor = UInt64(deviceParts[1], radix: 16) else { continue }
            guard seen.insert(path).inserted else { continue }
            mappings.append(Mapping(path: path, device: deviceNumber(major: major, minor: minor), inode: inode))
        }
        return mappings
    }

    /// glibc's `makedev`: the `st_dev` value of device `major:minor`.
    static func deviceNumber(major: UInt64, minor: UInt64) -> UInt64 {
        (major & 0xFFF) << 8 | (minor & 0xFF) | (minor & ~0xFF) << 12 | (major & ~0xFFF) << 32
    }

    /// Why the code mapped into process `pid` cannot be vouched for — a mapped file the caller
    /// could change (``CallerFileAccess``), one deleted or replaced since it was mapped, or one
    /// the service cannot examine — or nil when every mapped file is out of the caller's reach.
    static func untrustedCode(pid: Int32, access: CallerFileAccess) throws(PeerIdentification.Failure) -> String? {
        let text = try ProcessFile.text("/proc/\(pid)/maps")
        for mapping in executableMappings(inMaps: text) {
            var info = stat()
            guard stat(access.root + mapping.path, &info) == 0 else {
                // Deleted since it was mapped, or somewhere the service may not look (a user's
                // private directory): either way nothing can vouch for it.
                return errno == ENOENT ? "mapped code \(mapping.path) is not on disk"
                    : "mapped code \(mapping.path) cannot be examined (\(String(cString: strerror(errno))))"
            }
            guard UInt64(info.st_dev) == mapping.device, UInt64(info.st_ino) == mapping.inode else {
                return "mapped code \(mapping.path) was replaced since it was loaded"
            }
            if let modification = access.modification(of: mapping.path, info: info) { return "mapped code: \(modification)" }
        }
        return nil
    }
}
