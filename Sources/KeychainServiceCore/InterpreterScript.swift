#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// When a caller's executable is an interpreter (python3, perl, node, a shell, …), the program
/// is the script it runs, not the interpreter: every Python program would otherwise share
/// `/usr/bin/python3`'s identity and grants. The script is found on the process's command line
/// (`/proc/<pid>/cmdline`, a relative path resolved against `/proc/<pid>/cwd`) and judged as an
/// executable is: its path, its content's SHA-256, and whether its user could have changed it.
enum InterpreterScript {
    /// The interpreters the service knows, by executable name (versioned names such as
    /// `python3.11` or `perl5.36.0` count as their family). Part of the installed service, so
    /// only root changes it.
    static let families: [String: Family] = [
        "python": .python, "python2": .python, "python3": .python, "pypy3": .python,
        "perl": .perl, "node": .node, "nodejs": .node, "ruby": .ruby, "php": .php, "lua": .other, "tclsh": .other,
        "sh": .shell, "bash": .shell, "dash": .shell, "zsh": .shell, "ksh": .shell, "mksh": .shell, "fish": .shell, "busybox": .shell,
    ]

    /// What an interpreter family lets a user slip into the program besides the script.
    enum Family {
        case python, perl, node, ruby, php, shell, other

        /// Environment variables that make the interpreter load or run code of the user's
        /// choosing before or beside the script (a library path, an option string, a start-up file).
        var codeInjectingVariables: [String] {
            switch self {
            case .python: return ["PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "PYTHONUSERBASE", "PYTHONINSPECT"]
            case .perl: return ["PERL5LIB", "PERLLIB", "PERL5OPT", "PERL5DB"]
            case .node: return ["NODE_OPTIONS", "NODE_PATH"]
            case .ruby: return ["RUBYOPT", "RUBYLIB"]
            case .php: return ["PHPRC", "PHP_INI_SCAN_DIR"]
            case .shell: return ["BASH_ENV", "ENV"]
            case .other: return ["LUA_INIT", "LUA_PATH", "LUA_CPATH", "TCLLIBPATH"]
            }
        }

        /// Options after which the interpreter runs code from its command line or a module
        /// search, not a script file.
        var inlineCodeOptions: Set<String> {
            switch self {
            case .python: return ["-c", "-m"]
            case .perl: return ["-e", "-E", "-M", "-m"]
            case .node: return ["-e", "--eval", "-p", "--print", "-r", "--require", "--import"]
            case .ruby: return ["-e", "-r"]
            case .php: return ["-r"]
            case .shell: return ["-c"]
            case .other: return ["-e"]
            }
        }
    }

    /// The family of the interpreter at `executablePath`, or nil when it is not one.
    static func family(of executablePath: String) -> Family? {
        let name = executablePath.split(separator: "/").last.map(String.init) ?? executablePath
        if let family = families[name] { return family }
        // python3.11, perl5.36.0, ruby3.1, php8.2, node18: the family's name and a version.
        let stem = String(name.prefix(while: { !$0.isNumber && $0 != "." }))
        let version = name.dropFirst(stem.count)
        guard !version.isEmpty, version.allSatisfy({ $0.isNumber || $0 == "." }) else { return nil }
        return families[stem] ?? (stem == "python" ? .python : nil)
    }

    /// The script argument of an interpreter's command line (`arguments[0]` is the
    /// interpreter), or why there is none: code on the command line, standard input, or a
    /// Python that does not run isolated (`-I`: without it Python imports modules from the
    /// user's own site-packages, which the service cannot see).
    static func scriptArgument(_ arguments: [String], family: Family) -> Result<String, Refusal> {
        var isolated = false
        for argument in arguments.dropFirst() {
            if argument == "--" { continue }
            if argument.hasPrefix("-") {
                if family.inlineCodeOptions.contains(argument) || family.inlineCodeOptions.contains(where: { $0.count == 2 && argument.hasPrefix($0) && !argument.hasPrefix("--") }) {
                    return .failure(Refusal(description: "runs code given on its command line (\(argument))"))
                }
                if family == .python, argument.hasPrefix("-"), !argument.hasPrefix("--"), argument.contains("I") { isolated = true }
                continue
            }
            if family == .python && !isolated {
                return .failure(Refusal(description: "a Python script not run isolated (python3 -I) imports the user's own modules"))
            }
            return .success(argument)
        }
        return .failure(Refusal(description: "reads its program from standard input or a terminal"))
    }

    /// Why a script cannot stand for the caller.
    struct Refusal: Error {
        let description: String
    }

    /// The first of `family`'s code-injecting variables set in an `environ` text (NUL-separated).
    static func injectingVariable(inEnvironment environment: Data, family: Family) -> String? {
        let names = Set(family.codeInjectingVariables)
        for entry in environment.split(separator: 0) {
            guard let equals = entry.firstIndex(of: UInt8(ascii: "=")) else { continue }
            let name = String(decoding: entry[entry.startIndex..<equals], as: UTF8.self)
            if names.contains(name) { return name }
        }
        return nil
    }
}
