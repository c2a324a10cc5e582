import Foundation
import Testing
import KeychainPrimitives

/// `FilePaths.deletingLastComponent` stands in for `NSString.deletingLastPathComponent` in the
/// modules built on FoundationEssentials: the directories they create and check must be the same.
@Suite("File paths: the parent directory as NSString gives it")
struct FilePathsTests {
    static let paths = ["/home/u/.local/share/keychainkit/login.keychain-db", "/a/b", "/a/b/", "/a//b", "//a//b//", "/a", "/", "//",
                        "", "a/b", "a//b/c", "./a", "../a/b", "/a/./b", "/tmp/x y/é.keychain-db", "~/k", "/a/b/.."]

    @Test(arguments: paths)
    func matchesFoundation(path: String) {
        #expect(FilePaths.deletingLastComponent(path) == (path as NSString).deletingLastPathComponent, "\(path)")
    }

    /// Apple's documented examples, including a relative single component (which
    /// swift-corelibs-foundation 6.3 traps on, so it is not compared above).
    @Test func matchesApplesDocumentedExamples() {
        let examples = ["/tmp/scratch.tiff": "/tmp", "/tmp/lock/": "/tmp", "/tmp/": "/", "/tmp": "/", "/": "/", "scratch.tiff": "", "a/": ""]
        for (path, parent) in examples {
            #expect(FilePaths.deletingLastComponent(path) == parent, "\(path)")
        }
    }
}
