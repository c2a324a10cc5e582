#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainAudit
import KeychainEngine
import KeychainServiceWire
import KeychainServiceWireDictionaries
import KeychainVocabulary

/// `keychainctl access-log` through the keychain service: the service reads and verifies the
/// caller's own log (its uid's, from the kernel) and sends the entries; nothing else is reachable.
package enum ServiceAccessLogClient {
    /// A log that could not be read: the cause, and the `OSStatus` behind it.
    package struct Failure: Error, CustomStringConvertible {
        package let status: Int32
        package let description: String
    }

    /// Every entry of the caller's log, verified by the service, and how many bytes of an
    /// incomplete last entry it found.
    package static func read(socketPath: String) throws(Failure) -> (entries: [AccessLogEntry], incompleteTailBytes: Int) {
        var entries: [AccessLogEntry] = []
        var incomplete = 0
        var more = true
        while more {
            let request = ServiceRequest(operation: .readAccessLog, claimedApplicationIdentifier: nil, claimedAccessGroups: [],
                                         query: [WireEntry(key: ServiceRequest.skipKey, value: .integer(Int64(entries.count)))])
            let reply: ServiceReply
            do {
                reply = try ServiceClient.send(request, to: socketPath)
            } catch {
                throw Failure(status: KeychainStatus.notAvailable.rawValue, description: "the keychain service at \(socketPath) did not answer (\(error))")
            }
            guard reply.status == 0 else {
                throw Failure(status: reply.status, description: reply.failureReason ?? "the keychain service refused (status \(reply.status))")
            }
            guard case .dictionary(let fields)? = reply.result else { throw malformed }
            let values = WireEntry.dictionary(fields)
            guard let page = values[ServiceAccessLogs.entriesKey] as? [Any] else { throw malformed }
            for value in page {
                guard let entry = value as? [String: Any], let sequence = ReplyNumber.int64(entry[ServiceAccessLogs.sequenceKey]).map(UInt64.init(bitPattern:)),
                      let form = entry[ServiceAccessLogs.contentKey] as? Data,
                      let decoded = AccessLogEntry(sequence: sequence, transportForm: form) else { throw malformed }
                entries.append(decoded)
            }
            more = values[ServiceAccessLogs.moreKey] as? Bool ?? false
            incomplete = ReplyNumber.int64(values[ServiceAccessLogs.incompleteKey]).map { Int(truncatingIfNeeded: $0) } ?? 0
            if more && page.isEmpty { throw malformed }
        }
        return (entries, incomplete)
    }

    private static var malformed: Failure {
        Failure(status: KeychainStatus.decode.rawValue, description: "the keychain service's access-log reply is malformed")
    }
}
