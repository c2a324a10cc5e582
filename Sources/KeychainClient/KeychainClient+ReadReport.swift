import KeychainVocabulary

/// What the last read on this thread left out: Apple's API skips items it cannot decrypt
/// silently; the tools that list items say so (`KeychainFailureDetails`' figures, for the
/// tools that do not link the CF layer).
extension KeychainClient {
    /// How many items matching the last read on this thread could not be decrypted (damaged, or
    /// altered on disk) and were left out of its result.
    package static var unreadableItemsInLastRead: Int { FailureReport.lastUnreadableItems }

    /// Why the first item the last read on this thread left out could not be decrypted, naming
    /// it; nil when the read left nothing out.
    package static var firstUnreadableItemInLastRead: String? { FailureReport.lastFirstUnreadable?.description }
}
