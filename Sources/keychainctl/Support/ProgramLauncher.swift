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
import KeychainPrimitives

/// Replaces keychainctl with a program (`execve`), with an environment that adds the given
/// variables to keychainctl's own. Nothing runs in between: no shell, no temporary file, and the
/// program keeps keychainctl's process id, so its exit status and the signals that end it are
/// what the caller sees, with nothing to forward (a launcher that spawned a child and waited would
/// have to relay every signal and re-raise the child's death; here there is no second process).
enum ProgramLauncher {
    /// The executable `program` names: a path when it contains `/`, else the first executable
    /// regular file of that name in `PATH` (as `execvp` searches; an unset `PATH` is `/usr/bin:/bin`).
    /// Not found is exit 127 and not executable 126, as shells report them.
    static func resolve(_ program: String) throws(UsageFailure) -> String {
        if program.contains("/") {
            try checkExecutable(program, named: program)
            return program
        }
        let searchPath = ProcessEnvironment.value(of: "PATH") ?? "/usr/bin:/bin"
        for directory in searchPath.split(separator: ":", omittingEmptySubsequences: false) {
            let candidate = (directory.isEmpty ? "." : String(directory)) + "/" + program
            var info = stat()
            if stat(candidate, &info) == 0, info.st_mode & S_IFMT == S_IFREG, access(candidate, X_OK) == 0 { return candidate }
        }
        throw UsageFailure(message: "\(program): command not found", exitCode: 127)
    }

    private static func checkExecutable(_ path: String, named program: String) throws(UsageFailure) {
        var info = stat()
        guard stat(path, &info) == 0 else { throw UsageFailure(message: "\(program): no such file", exitCode: 127) }
        guard info.st_mode & S_IFMT == S_IFREG, access(path, X_OK) == 0 else {
            throw UsageFailure(message: "\(program): not an executable file", exitCode: 126)
        }
    }

    /// Runs `executable` with `arguments` (the first is the program's name) and this process's
    /// environment without `withheld`, plus `variables` (replacing variables of the same name).
    /// Returns only if `execve` fails. The secrets are copied into C strings that are zeroed if it does.
    static func replaceProcess(executable: String, arguments: [String], variables: [(name: String, value: Data)],
                               withholding withheld: Set<String> = []) throws(UsageFailure) -> Never {
        var environment: [UnsafeMutablePointer<CChar>?] = []
        let replaced = Set(variables.map(\.name)).union(withheld)
        let current = ProcessEnvironment.entries
        var index = 0
        while let entry = current[index] {
            index += 1
            let text = String(cString: entry)
            let name = text.prefix(while: { $0 != "=" })
            if replaced.contains(String(name)) { continue }
            environment.append(strdup(entry))
        }
        var secretCopies: [(UnsafeMutablePointer<CChar>, Int)] = []
        for variable in variables {
            let size = variable.name.utf8.count + 1 + variable.value.count + 1
            let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: size)
            buffer.withMemoryRebound(to: UInt8.self, capacity: size) { bytes in
                var offset = 0
                for byte in variable.name.utf8 { bytes[offset] = byte; offset += 1 }
                bytes[offset] = UInt8(ascii: "="); offset += 1
                variable.value.copyBytes(to: bytes + offset, count: variable.value.count)
                bytes[size - 1] = 0
            }
            secretCopies.append((buffer, size))
            environment.append(buffer)
        }
        environment.append(nil)
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) }
        argv.append(nil)
        // Buffered output would be lost (or, had it been written by a library, repeated) by execve.
        fflush(nil)
        // The program starts with no signal blocked, as from a shell: a mask inherited from
        // whatever started keychainctl (some runtimes block SIGTERM in the thread that spawns)
        // would otherwise make it deaf to SIGTERM and SIGINT. Ignored signals stay ignored, as
        // execve keeps them (so `nohup keychainctl exec …` works).
        var none = sigset_t()  // all zero: the empty set
        #if canImport(Glibc)
        sigemptyset(&none)
        #endif
        sigprocmask(SIG_SETMASK, &none, nil)
        execve(executable, argv, environment)
        let reason = String(cString: strerror(errno))
        for (buffer, size) in secretCopies {
            buffer.initialize(repeating: 0, count: size)
            buffer.deallocate()
        }
        throw UsageFailure(message: "\(arguments.first ?? executable): cannot run it (\(reason))", exitCode: errno == ENOENT ? 127 : 126)
    }
}
