import KeychainVocabulary

/// The outcome of a SecItem call: a status and, on success, the value the caller's `result`
/// pointer receives (nil when nothing was asked for); on failure, the error with its reason.
package struct SecItemResult: @unchecked Sendable {
    /// The `OSStatus`.
    package var status: Int32
    /// `Data`, `[String: Any]` or `[Any]`, shaped as Apple documents; nil when not requested.
    package var value: Any?
    /// Why the call failed (its status is `status`); nil on success.
    package var failure: KeychainStoreError?
    /// How many matching items a read left out because they could not be decrypted (damaged,
    /// or altered on disk). Apple skips them silently; tools that list items say so.
    package var unreadableItems = 0
    /// Why the first of ``unreadableItems`` could not be read, naming the item; nil when none was left out.
    package var firstUnreadableItem: KeychainStoreError?

    /// Creates an outcome.
    package init(status: Int32, value: Any? = nil) {
        self.status = status
        self.value = value
    }

    /// The outcome of a call that failed with `failure`.
    package init(failure: KeychainStoreError) {
        self.status = failure.osStatus
        self.failure = failure
    }
}
