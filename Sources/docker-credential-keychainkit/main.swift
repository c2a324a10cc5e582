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

// docker-credential-keychainkit: Docker's credential-helper protocol over the keychain.
// `docker` runs it as `docker-credential-keychainkit <store|get|erase|list|version>`.
let action = CommandLine.arguments.dropFirst().first ?? ""
DockerAccessRecording.prepare(DockerCredentialHelper.environment)
let outcome: DockerCredentialHelper.Outcome
if DockerCredentialHelper.readsInput(action) {
    switch StandardStreams.readInput() {
    case .success(let input): outcome = DockerCredentialHelper.run(action: action, input: input)
    case .failure(let failure): outcome = DockerCredentialHelper.Outcome(output: Data((failure.message + "\n").utf8), exitCode: 1)
    }
} else {
    outcome = DockerCredentialHelper.run(action: action, input: Data())
}
// Output that could not be written is a failure Docker must see, whatever the action did.
exit(StandardStreams.writeOutput(outcome.output) ? outcome.exitCode : 1)
