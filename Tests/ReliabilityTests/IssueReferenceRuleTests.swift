import Foundation
import Testing

/// Users and maintainers cannot see the project's issue tracker: a comment, a test's name or a doc
/// that says "issue 24 (3b)" tells them nothing about why the code is as it is. A comment states the
/// behaviour, the threat or the measured reason instead. This rule reads the tree and names, as
/// file:line, every citation of an issue number; another project's issue cited by its address
/// (`github.com/owner/project/issues/752`) is a public source and is allowed.
@Suite("Comments and docs cite no internal issue numbers")
struct IssueReferenceRuleTests {
    static let root = DocumentationLinkTests.root

    /// What the rule reads, relative to the repository: every text file below these folders
    /// (hidden folders such as `.build` and the fuzz corpora skipped) and these files.
    static let scannedFolders = ["Sources", "Tests", "Fuzz", "Benchmarks", "bench", "scripts", ".ci", "docs"]
    static let scannedFiles = ["README.md", "Package.swift"]
    static let skippedFolders: Set<String> = ["Fuzz/Corpus"]

    /// This file: its examples of what the rule refuses are not citations.
    static let ownPath = String(URL(fileURLWithPath: #filePath).standardizedFileURL.path.dropFirst(root.standardizedFileURL.path.count + 1))

    /// "issue 12", "Issue 24 (3a)", "issues 22 and 23", "issue #7", "issue number 3", and a number
    /// wrapped onto the next comment line ("issue" ending a `//`, `///`, `#`, `*` or `--` line). An
    /// address's `issues/752` has a `/` before its number, so it is not a citation.
    static func citationPattern() throws -> Regex<AnyRegexOutput> {
        try Regex(#"\bissues?(\s+(number|no\.?))?[ \t]*(\n[ \t]*(///?|#|\*|--)?[ \t]*)?#?[0-9]+"#).ignoresCase()
    }

    /// Each citation in `text`, as its 1-based line and the text cited (on one line).
    static func citations(in text: String, pattern: Regex<AnyRegexOutput>) -> [(line: Int, citation: String)] {
        var found: [(Int, String)] = []
        var line = 1
        var counted = text.startIndex
        for match in text.matches(of: pattern) {
            line += text[counted..<match.range.lowerBound].reduce(0) { $1 == "\n" ? $0 + 1 : $0 }
            counted = match.range.lowerBound
            let cited = text[match.range].split(whereSeparator: \.isWhitespace).joined(separator: " ")
            found.append((line, cited))
        }
        return found
    }

    /// The scanned text files, relative to the repository, sorted. A file with a NUL byte or that
    /// is not UTF-8 (a keychain fixture, a fuzz seed) is not text and is left out.
    static func textFiles() throws -> [(path: String, text: String)] {
        var paths = scannedFiles
        for folder in scannedFolders {
            let base = root.appendingPathComponent(folder)
            guard let enumerator = FileManager.default.enumerator(at: base, includingPropertiesForKeys: [.isDirectoryKey, .isRegularFileKey])
            else { continue }
            for case let url as URL in enumerator {
                let relative = folder + "/" + String(url.standardizedFileURL.path.dropFirst(base.standardizedFileURL.path.count + 1))
                let values = try url.resourceValues(forKeys: [.isDirectoryKey, .isRegularFileKey])
                if values.isDirectory == true {
                    if url.lastPathComponent.hasPrefix(".") || skippedFolders.contains(relative) { enumerator.skipDescendants() }
                } else if values.isRegularFile == true {
                    paths.append(relative)
                }
            }
        }
        return try paths.sorted().compactMap { path in
            let data = try Data(contentsOf: root.appendingPathComponent(path))
            guard !data.contains(0), let text = String(data: data, encoding: .utf8) else { return nil }
            return (path, text)
        }
    }

    @Test("the pattern finds issue numbers in their usual spellings, and not an address, a type or another word")
    func patternFindsCitations() throws {
        let pattern = try Self.citationPattern()
        let cited = [
            "// Issue 24 (3b): a keychain file deleted", "/// computing it (issue 11) must", "issues 22 and 23",
            "see issue #7", "Issue 12, items 2–4", "(issue number 3)",
            "    /// and the two CI runs at once of issue\n    /// 25 — and the read", "# the targets of issue\n# 11",
        ]
        for text in cited {
            #expect(Self.citations(in: text, pattern: pattern).count == 1, "not found in: \(text)")
        }
        let notCited = [
            "https://github.com/apple/swift-nio/issues/752", "Issue.record(\"no row 3\")", "issuer 12 and serial 3",
            "records an issue and returns nil", "RSA PKCS#1 v1.5", "RFC 5652", "reissue 3 keys", "an issue\n\n12 lines",
        ]
        for text in notCited {
            #expect(Self.citations(in: text, pattern: pattern).isEmpty, "wrongly found in: \(text)")
        }
        #expect(Self.citations(in: "a\nb (issue 3)\nc\nissue 4", pattern: pattern).map(\.line) == [2, 4])
        #expect(Self.citations(in: "issue\n    /// 25", pattern: pattern).map(\.citation) == ["issue /// 25"])
    }

    @Test("no comment, string or doc in the tree cites an internal issue number")
    func noIssueNumbers() throws {
        let pattern = try Self.citationPattern()
        let files = try Self.textFiles()
        #expect(files.contains { $0.path == "Tests/ReliabilityTests/LayerRuleTests.swift" }, "the tree was not found from \(Self.root.path)")
        #expect(files.contains { $0.path == Self.ownPath }, "this file's path: \(Self.ownPath)")
        var offending: [String] = []
        for file in files where file.path != Self.ownPath {
            for found in Self.citations(in: file.text, pattern: pattern) {
                offending.append("\(file.path):\(found.line): \(found.citation)")
            }
        }
        #expect(offending.isEmpty, "internal issue numbers (say the behaviour, threat or measured reason instead):\n\(offending.joined(separator: "\n"))")
    }
}
