import Foundation

/// The targets Package.swift declares, read from its text (the tests cannot evaluate the manifest):
/// each target's kind, the directory of its sources and which of the package's own targets it
/// depends on. Enough for `LayerRuleTests` to hold its layer table against the manifest.
struct PackageManifest {
    /// One `.target`, `.executableTarget`, `.testTarget` or `.systemLibrary` of the manifest.
    struct Target: Equatable {
        /// `target`, `executableTarget`, `testTarget` or `systemLibrary`.
        var kind: String
        /// The directory of its sources, relative to the package root (`path:`, else the default).
        var directory: String
        /// The package's own targets among its dependencies (conditional ones included).
        var dependencies: Set<String>
        /// Those of ``dependencies`` built on Linux: without a condition, or with one that names
        /// Linux (`.linux`, `reimplementedPlatforms`).
        var linuxDependencies: Set<String>

        /// A target; `linuxDependencies` nil: all of `dependencies`.
        init(kind: String, directory: String, dependencies: Set<String>, linuxDependencies: Set<String>? = nil) {
            self.kind = kind
            self.directory = directory
            self.dependencies = dependencies
            self.linuxDependencies = linuxDependencies ?? dependencies
        }
    }

    /// The targets by name.
    let targets: [String: Target]

    /// Why Package.swift could not be read; names what was not found.
    struct Unreadable: Error, CustomStringConvertible {
        let description: String
    }

    /// Reads the manifest at `path`.
    init(contentsOf path: String) throws {
        try self.init(text: try String(contentsOfFile: path, encoding: .utf8), path: path)
    }

    /// Reads the manifest `text` (`path` names it in errors).
    init(text: String, path: String = "the manifest") throws {
        let code = Self.removingComments(text)
        guard let list = code.matches(of: try Regex(#"(?m)^\s*targets:\s*\["#)).last else {
            throw Unreadable(description: "no `targets: [` argument in \(path)")
        }
        var declared: [(name: String, kind: String, path: String?, dependencies: [String], linuxDependencies: [String])] = []
        for element in Self.topLevelElements(of: Array(code[list.range.upperBound...])) {
            let text = String(element).trimmingCharacters(in: .whitespacesAndNewlines)
            guard !text.isEmpty else { continue }
            guard let kind = text.firstMatch(of: try Regex(#"^\.(\w+)\("#))?.output[1].substring,
                  let name = text.firstMatch(of: try Regex(#"name:\s*"([^"]+)""#))?.output[1].substring else {
                throw Unreadable(description: "a target of \(path) without a name: \(text.prefix(80))")
            }
            let directory = text.firstMatch(of: try Regex(#"path:\s*"([^"]+)""#))?.output[1].substring
            var dependencies: [String] = []
            var linuxDependencies: [String] = []
            if let start = text.firstMatch(of: try Regex(#"dependencies:\s*\["#)) {
                for element in Self.topLevelElements(of: Array(text[start.range.upperBound...])) {
                    // Another package's products are not targets of this one.
                    let ownReference = element.replacing(try Regex(#"\.product\([^)]*\)"#), with: "")
                    guard let name = ownReference.firstMatch(of: try Regex(#""([^"]+)""#))?.output[1].substring.map(String.init) else { continue }
                    dependencies.append(name)
                    if !ownReference.contains("condition:") || ownReference.contains(".linux") || ownReference.contains("reimplementedPlatforms") {
                        linuxDependencies.append(name)
                    }
                }
            }
            declared.append((String(name), String(kind), directory.map(String.init), dependencies, linuxDependencies))
        }
        let names = Set(declared.map(\.name))
        var targets: [String: Target] = [:]
        for target in declared {
            let directory = target.path ?? ((target.kind == "testTarget" ? "Tests/" : "Sources/") + target.name)
            targets[target.name] = Target(kind: target.kind, directory: directory,
                                          dependencies: Set(target.dependencies).intersection(names),
                                          linuxDependencies: Set(target.linuxDependencies).intersection(names))
        }
        self.targets = targets
    }

    /// The package's own targets `target` links on Linux, directly or through others (itself excluded).
    func linuxClosure(of target: String) -> Set<String> {
        var found: Set<String> = []
        var pending = Array(targets[target]?.linuxDependencies ?? [])
        while let next = pending.popLast() {
            guard found.insert(next).inserted else { continue }
            pending += targets[next]?.linuxDependencies ?? []
        }
        return found
    }

    /// `code` without its `//` comments (string literals kept: a URL is not a comment).
    static func removingComments(_ code: String) -> String {
        var result = ""
        var inString = false
        var characters = code.makeIterator()
        var pending: Character?
        while let character = pending ?? characters.next() {
            pending = nil
            if inString {
                result.append(character)
                if character == "\\", let escaped = characters.next() { result.append(escaped) }
                if character == "\"" { inString = false }
                continue
            }
            if character == "\"" { inString = true; result.append(character); continue }
            if character == "/" {
                let next = characters.next()
                if next == "/" {
                    while let skipped = characters.next(), skipped != "\n" {}
                    result.append("\n")
                    continue
                }
                pending = next
            }
            result.append(character)
        }
        return result
    }

    /// The comma-separated elements of the list that `characters` starts inside (after its `[`),
    /// up to the list's closing bracket; brackets and strings inside elements are skipped over.
    static func topLevelElements(of characters: [Character]) -> [String] {
        var elements: [String] = []
        var current = ""
        var depth = 0
        var inString = false
        for character in characters {
            if inString {
                current.append(character)
                if character == "\"" { inString = false }
                continue
            }
            switch character {
            case "\"": inString = true
            case "(", "[": depth += 1
            case ")", "]":
                if depth == 0 { return elements + [current] }
                depth -= 1
            case "," where depth == 0:
                elements.append(current)
                current = ""
                continue
            default: break
            }
            current.append(character)
        }
        return elements + [current]
    }

    /// The text of the list that `characters` starts inside, up to its closing bracket.
    static func bracketed(_ characters: [Character]) -> String {
        topLevelElements(of: characters).joined(separator: ",")
    }
}
