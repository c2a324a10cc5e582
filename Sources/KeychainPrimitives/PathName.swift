/// The last component of a file path, as Foundation's `NSString.lastPathComponent` gives it on
/// Linux (which FoundationEssentials lacks): trailing slashes do not count, `/` is itself, and
/// `""`, `//` are `""`.
/// Unlike `URL(fileURLWithPath:)`, it never resolves a relative or empty path against the
/// working directory.
package enum PathName {
    /// `path`'s last component: `/a/b.txt` → `b.txt`, `/a/b/` → `b`, `/` → `/`.
    package static func lastComponent(of path: String) -> String {
        guard path != "/" else { return path }
        var trimmed = Substring(path)
        while trimmed.last == "/" { trimmed.removeLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return String(trimmed) }
        return String(trimmed[trimmed.index(after: slash)...])
    }
}
