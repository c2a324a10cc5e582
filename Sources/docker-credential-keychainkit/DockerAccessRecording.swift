import InternetCredentials
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainPrimitives
import KeychainToolSupport
#if os(Linux)  // mirrors the `.when(platforms: [.linux])` condition on the KeychainAudit dependency
import KeychainAudit
#endif

/// The helper's reads and writes, recorded in the default keychain's access log (docs/CLI.md,
/// "Access log") before the credential is printed or the store reported. A record that fails fails
/// the action: Docker gets no credential that was not logged.
enum DockerAccessRecording {
    /// A record that failed, and what that means for the action.
    struct Failure: Error {
        var message: String
    }

    /// What was done.
    enum Operation {
        case read, update, delete
    }

    /// Lets the helper reach the log's key item (its own access group stays the default for adds).
    static func prepare(_ environment: ToolEnvironment) {
        #if os(Linux)
        environment.grantAccessGroup(AccessLog.keyAccessGroup)
        #endif
    }

    /// Records `operation` on `credential` (a store is recorded as an update: the helper replaces
    /// whatever the registry had).
    static func record(_ operation: Operation, _ credential: InternetCredential) throws {
        #if os(Linux)
        let outcome = switch operation {
        case .read: "the credential was not given out because the access could not be logged: "
        case .update: "the credential was stored, but the access log could not record it: "
        case .delete: "the credential was erased, but the access log could not record it: "
        }
        do {
            let log = AccessLog(keychainAt: DockerCredentialHelper.environment.defaultKeychainPath, settings: try DockerCredentialHelper.environment.accessLogSettings())
            let item = AccessEvent.Item(label: credential.label, service: credential.host, account: credential.account)
            try log.recordOwnAccess(operation == .read ? .read : operation == .update ? .update : .delete, items: [item],
                                    channel: .dockerCredentialHelper)
        } catch let error as AccessLogError {
            throw Failure(message: outcome + AccessLogFailure.describe(error))
        } catch {
            throw Failure(message: outcome + SystemErrorText.of(error))
        }
        #endif
    }

    /// Before a store: makes sure the default keychain's access log can record it, so that a
    /// keychain that cannot log refuses with the cause and the fix and changes nothing (rather than
    /// storing and then failing). A keychain that does not exist yet is created by the store with
    /// this process's device key, so it can log.
    static func prepareToRecord() throws {
        #if os(Linux)
        do {
            let path = DockerCredentialHelper.environment.defaultKeychainPath
            guard FileManager.default.fileExists(atPath: path) else { return }
            try AccessLog(keychainAt: path, settings: try DockerCredentialHelper.environment.accessLogSettings()).prepare()
        } catch {
            throw Failure(message: "nothing was stored because the access could not be logged: " + AccessLogFailure.describe(error))
        }
        #endif
    }
}
