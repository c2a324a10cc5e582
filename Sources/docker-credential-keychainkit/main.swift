import Foundation

// docker-credential-keychainkit: Docker's credential-helper protocol over the keychain.
// `docker` runs it as `docker-credential-keychainkit <store|get|erase|list|version>`.
let outcome = DockerCredentialHelper.run(action: CommandLine.arguments.dropFirst().first ?? "",
                                         input: FileHandle.standardInput.readDataToEndOfFile())
FileHandle.standardOutput.write(outcome.output)
exit(outcome.exitCode)
