import Foundation

// docker-credential-keychainkit: Docker's credential-helper protocol over the keychain.
// `docker` runs it as `docker-credential-keychainkit <store|get|erase|list|version>`.
let action = CommandLine.arguments.dropFirst().first ?? ""
DockerAccessRecording.prepare(DockerCredentialHelper.environment)
let outcome = DockerCredentialHelper.run(
    action: action, input: DockerCredentialHelper.readsInput(action) ? FileHandle.standardInput.readDataToEndOfFile() : Data())
FileHandle.standardOutput.write(outcome.output)
exit(outcome.exitCode)
