import KeychainVocabulary

/// Why the last Keychain Services call on this thread failed, beyond its `OSStatus`.
///
/// Apple's C functions return only a status, and `SecCopyErrorMessageString` gives Apple's text
/// for it ("No keychain is available. You may need to restart your computer." for every file that
/// is refused). On Linux the keychain knows the precise cause — a keychain directory others can
/// write to, a keychain file readable by others, a file rolled back to an older copy, a value over
/// the size limit — and keeps it, for the calling thread, until that thread's next call:
///
/// ```swift
/// let status = SecItemAdd(attributes as CFDictionary, nil)
/// if status != errSecSuccess {
///     let reason = KeychainFailureDetails.reason(for: status)
///     print("keychain: \(SecCopyErrorMessageString(status, nil) ?? "") \(reason ?? "")")
/// }
/// ```
///
/// Read it right after the call, on the same thread. It never contains a secret.
public enum KeychainFailureDetails {
    /// The cause and the fix of the last failed call on this thread, if it returned `status` and
    /// the keychain knew more than the status says; nil otherwise.
    ///
    /// - Parameter status: The status the call returned.
    /// - Returns: One or more sentences naming the cause and what to do, or nil.
    public static func reason(for status: OSStatus) -> String? {
        FailureReport.lastFailure(status: status)?.explanation
    }

    /// How many items matching the last read on this thread could not be decrypted (damaged, or
    /// altered on disk) and were left out of its result. Apple's API skips such items silently;
    /// tools that list items should say so.
    public static var unreadableItemsInLastRead: Int {
        FailureReport.lastUnreadableItems
    }

    /// Why the first item the last read on this thread left out could not be decrypted, naming
    /// the item as the read asked for it ("item 'service/account' is damaged or was altered: …",
    /// or its persistent id); nil when the read left nothing out.
    public static var firstUnreadableItemInLastRead: String? {
        FailureReport.lastFirstUnreadable?.description
    }
}
