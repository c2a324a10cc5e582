import Foundation
import KeychainStore
import KeychainVocabulary

/// The store error `body` throws, or nil if it succeeds; an error of another type comes back as an
/// internal failure naming it, so that an assertion on the store error fails and shows it.
package func storeError(_ body: () throws -> Void) -> KeychainStoreError? {
    do {
        try body()
        return nil
    } catch let error as KeychainStoreError {
        return error
    } catch {
        return .internalFailure("not a store error: \(error)")
    }
}
