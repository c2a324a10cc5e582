import Foundation
import Testing

/// The docs point at each other, and the code's comments point at the docs. A moved section or a
/// renamed doc leaves links that lead nowhere, which no compiler notices: these checks read the
/// tree and name every link and reference that does not resolve.
@Suite("Documentation links")
struct DocumentationLinkTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// README.md and every Markdown file under docs/ and Sources/ (the DocC catalogs), as paths
    /// relative to the repository.
    static func markdownFiles() throws -> [String] {
        var files = ["README.md"]
        for folder in ["docs", "Sources"] {
            let enumerator = FileManager.default.enumerator(atPath: root.appendingPathComponent(folder).path)
            while let relative = enumerator?.nextObject() as? String {
                if relative.hasSuffix(".md") { files.append(folder + "/" + relative) }
            }
        }
        return files.sorted()
    }

    static func text(_ relativePath: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(relativePath), encoding: .utf8)
    }

    /// The anchor GitHub gives a heading: lower-cased; letters, digits, `_`, `-` and spaces kept,
    /// every other character dropped; spaces become `-`.
    static func anchor(ofHeading heading: String) -> String {
        var anchor = ""
        for scalar in heading.lowercased().unicodeScalars {
            let properties = scalar.properties
            if scalar == " " {
                anchor.append("-")
            } else if scalar == "-" || scalar == "_" || properties.isAlphabetic || properties.numericType != nil {
                anchor.unicodeScalars.append(scalar)
            }
        }
        return anchor
    }

    /// The anchors of a Markdown file's headings (outside code blocks); a repeated heading gets
    /// `-1`, `-2`… as on GitHub.
    static func anchors(in markdown: String) -> Set<String> {
        var anchors: Set<String> = []
        var seen: [String: Int] = [:]
        var inCodeBlock = false
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") { inCodeBlock.toggle() }
            guard !inCodeBlock, line.hasPrefix("#") else { continue }
            let heading = line.drop { $0 == "#" }
            guard heading.first == " " else { continue }
            let base = anchor(ofHeading: heading.trimmingCharacters(in: .whitespaces))
            let count = seen[base, default: 0]
            seen[base] = count + 1
            anchors.insert(count == 0 ? base : "\(base)-\(count)")
        }
        return anchors
    }

    @Test("the anchor of a heading is GitHub's")
    func headingAnchors() {
        #expect(Self.anchor(ofHeading: "Concurrency, durability and the files around the keychain")
                == "concurrency-durability-and-the-files-around-the-keychain")
        #expect(Self.anchor(ofHeading: "SecKey (`KeychainServicesPortable/Keys/`)") == "seckey-keychainservicesportablekeys")
        #expect(Self.anchors(in: "# A\n```\n# not a heading\n```\n## A\n#hashtag\n") == ["a", "a-1"])
    }

    @Test("every relative link in the docs leads to a file, and every #anchor to a heading of it")
    func relativeLinksResolve() throws {
        let link = try Regex(#"\]\(([^)\s]+)\)"#)
        var broken: [String] = []
        for file in try Self.markdownFiles() {
            let directory = URL(fileURLWithPath: file).deletingLastPathComponent().relativePath
            for match in try Self.text(file).matches(of: link) {
                guard let target = match.output[1].substring.map(String.init),
                      !target.contains("://"), !target.hasPrefix("mailto:") else { continue }
                let parts = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                let path = parts[0].isEmpty ? file : (directory == "." ? parts[0] : directory + "/" + parts[0])
                let resolved = URL(fileURLWithPath: path, relativeTo: Self.root).standardizedFileURL.path
                guard FileManager.default.fileExists(atPath: resolved) else {
                    broken.append("\(file): \(target) (no such file)")
                    continue
                }
                if parts.count == 2, resolved.hasSuffix(".md"),
                   !Self.anchors(in: try String(contentsOfFile: resolved, encoding: .utf8)).contains(parts[1]) {
                    broken.append("\(file): \(target) (no such heading)")
                }
            }
        }
        #expect(broken.isEmpty, "links that lead nowhere: \(broken)")
    }

    @Test("every docs/…md the code, tests, scripts and benchmarks name exists, a section cited by its quoted heading is one, and none is cited by section number")
    func referencesFromCodeResolve() throws {
        let docReference = try Regex(#"docs/([A-Za-z0-9_-]+\.md)"#)
        // `docs/<doc>.md, "Heading"`, `docs/<doc>.md ("Heading")`, `docs/<doc>.md "Heading"`: a heading,
        // or the bold lead of a paragraph (`**Transfer of secrets**`).
        let sectionReference = try Regex(#"docs/([A-Za-z0-9_-]+\.md),?\s*\(?"([^"\n]+)""#)
        let sectionNumber = try Regex(#"[A-Z][A-Z-]+(\.md)? §\s?[0-9]"#)
        var broken: [String] = []
        for folder in ["Sources", "Tests", "scripts", "bench", "Benchmarks", "Fuzz"] {
            let enumerator = FileManager.default.enumerator(atPath: Self.root.appendingPathComponent(folder).path)
            while let relative = enumerator?.nextObject() as? String {
                if relative.split(separator: "/").contains(where: { $0.hasPrefix(".") }) { enumerator?.skipDescendants(); continue }
                guard relative.hasSuffix(".swift") || relative.hasSuffix(".sh") || relative.hasSuffix(".py") else { continue }
                let file = folder + "/" + relative
                let text = try Self.text(file)
                for match in text.matches(of: docReference) {
                    let name = String(match.output[1].substring ?? "")
                    if !FileManager.default.fileExists(atPath: Self.root.appendingPathComponent("docs/" + name).path) {
                        broken.append("\(file): docs/\(name) does not exist")
                    }
                }
                for match in text.matches(of: sectionReference) {
                    let name = String(match.output[1].substring ?? "")
                    let heading = String(match.output[2].substring ?? "")
                    guard let doc = try? Self.text("docs/" + name) else { continue }  // reported above
                    let headings = doc.split(separator: "\n").filter { $0.hasPrefix("#") }.map { $0.drop(while: { $0 == "#" }).trimmingCharacters(in: .whitespaces) }
                    if !headings.contains(where: { $0.hasPrefix(heading) }) && !doc.contains("**\(heading)**") {
                        broken.append("\(file): docs/\(name) has no heading \"\(heading)\"")
                    }
                }
                for match in text.matches(of: sectionNumber) {
                    broken.append("\(file): \(text[match.range]) (cite the section by its name: numbers change)")
                }
            }
        }
        #expect(broken.isEmpty, "\(broken)")
    }
}
