#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension AccessLogEntry {
    /// The entry's content in the form the log encrypts (JSON), for the keychain service to hand a
    /// verified entry to its user's `keychainctl access-log`. Never a secret: entries hold none.
    package var transportForm: Data {
        get throws {
            try JSONEncoder().encode(StoredContent(content))
        }
    }

    /// The entry numbered `sequence` whose content is `transportForm`, or nil when it is not an
    /// entry this version knows.
    package init?(sequence: UInt64, transportForm: Data) {
        let stored: StoredContent
        do {
            stored = try JSONDecoder().decode(StoredContent.self, from: transportForm)
        } catch {
            return nil  // a reply that is no entry: the caller reports the reply as malformed
        }
        guard let content = stored.content else { return nil }
        self.init(sequence: sequence, content: content)
    }
}
