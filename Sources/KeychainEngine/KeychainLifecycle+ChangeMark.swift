import KeychainStore
import KeychainVocabulary

extension KeychainLifecycle {
    /// The change mark of the keychain at `path` (``KeychainChangeMark``) as this process's handle
    /// on it sees it now; the keychain is opened if this process has not opened it yet. A missing
    /// file is `errSecNoSuchKeychain`.
    package func changeMark(_ path: String) throws(KeychainCallFailure) -> KeychainChangeMark {
        let path = resolve(path)
        do {
            return try registry.database(at: path, createIfMissing: false).changeMark()
        } catch {
            throw KeychainCallFailure(status: error.osStatus, failure: error)
        }
    }
}
