// Whether a keychain file changed, and by whom (Linux only; Apple's Security API has no such
// query). A process that keeps a keychain's items in memory (the Secret Service provider's search
// index) compares marks to know when its copy may be stale.

import Foundation
import KeychainClient
import KeychainEngine
import KeychainServicesPortable

/// Linux only: an opaque mark of `keychain`'s committed state as this process sees it now, to
/// compare with an earlier one (equal bytes, nothing changed in between).
///
/// The mark moves when any other process (or another connection) commits to the file, and when
/// this process's own handle changes any row; it never moves for reads. Two marks of one keychain
/// taken around a write of this process whose *other-process* part did not move show that nobody
/// else committed in between: ``SecKeychainChangeMarkOtherProcessesEqual(_:_:)`` compares that part.
/// A keychain held by the keychain service (`KEYCHAINKIT_SERVICE_SOCKET`) has no mark here:
/// `errSecUnimplemented`. A missing file is `errSecNoSuchKeychain`.
public func SecKeychainCopyChangeMark(_ keychain: SecKeychain, _ mark: UnsafeMutablePointer<CFData?>) -> OSStatus {
    keychainCallStatus { () throws(KeychainCallFailure) in
        mark.pointee = try KeychainFileCalls.changeMark(keychain.path) as NSData
    }
}

/// Linux only: whether two marks of ``SecKeychainCopyChangeMark(_:_:)`` show the same commits by
/// other processes (and the same connection of this one): what changed between them, if anything,
/// was changed by this process's own handle on the keychain. False for anything that is not two marks.
public func SecKeychainChangeMarkOtherProcessesEqual(_ first: CFData, _ second: CFData) -> Bool {
    KeychainFileCalls.changeMarksOtherProcessesEqual(Data(copyingBytesOf: first), Data(copyingBytesOf: second))
}
