#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainPrimitives
import KeychainVocabulary

extension ByteReader where Failure == KeychainStoreError {
    /// A reader of one of the keychain file's binary values (item payloads, keybag entries, KDF
    /// parameters, sealed application passwords); reading past their end is an undecodable record.
    package init(record bytes: Data) {
        self.init(bytes, truncated: .undecodable("a truncated record"))
    }
}
