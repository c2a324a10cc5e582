/// Path text as Foundation's `NSString` path methods read it, for modules that use only
/// FoundationEssentials (which has no `NSString`).
package enum FilePaths {
    /// The path without its last component, exactly as `NSString.deletingLastPathComponent`
    /// gives it: repeated slashes become one and a trailing slash is dropped first (so `//`
    /// becomes the empty path); the parent of `/a` is `/`, of `a` is the empty string, and `/`
    /// and the empty path stay as they are.
    package static func deletingLastComponent(_ path: String) -> String {
        if path == "/" { return path }
        var fixed = ""
        fixed.reserveCapacity(path.utf8.count)
        var afterSlash = false
        for character in path {
            if character == "/" {
                if afterSlash { continue }
                afterSlash = true
            } else {
                afterSlash = false
            }
            fixed.append(character)
        }
        if fixed.hasSuffix("/") { fixed.removeLast() }
        if fixed.isEmpty { return fixed }
        guard let lastSlash = fixed.lastIndex(of: "/") else { return "" }
        if lastSlash == fixed.startIndex { return "/" }
        return String(fixed[..<lastSlash])
    }
}
