#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainEngine
import KeychainServiceWire
import KeychainVocabulary

/// One call to the keychain service that is not a SecItem call (the login keychain's lifecycle,
/// the user's grants): sent on a connection of its own, with an unanswered or refused call turned
/// into a ``KeychainCallFailure`` that names the cause and the fix.
package enum ServiceKeychainCall {
    /// The service's successful reply to `operation` with `query`, sent to `socket`.
    package static func reply(to operation: ServiceRequest.Operation, _ query: [WireEntry], socket: String) throws(KeychainCallFailure) -> ServiceReply {
        let request = ServiceRequest(operation: operation, claimedApplicationIdentifier: nil, claimedAccessGroups: [], query: query)
        let reply: ServiceReply
        do {
            reply = try ServiceClient.send(request, to: socket)
        } catch {
            let failure = KeychainStoreError.notAvailable("the keychain service at \(socket) did not answer (\(error)); start it "
                                                          + "(keychainctl service run) or unset \(KeychainVariable.serviceSocket)")
            throw KeychainCallFailure(status: failure.osStatus, failure: failure)
        }
        guard reply.status == KeychainStatus.success.rawValue else {
            throw KeychainCallFailure(status: reply.status,
                                      failure: KeychainStoreError(.notAvailable(reply.failureReason ?? "the keychain service refused the call"),
                                                                  status: KeychainStatus(rawValue: reply.status)))
        }
        return reply
    }
}
