import Foundation
import KeychainTestSupport
@testable import KeychainStore
import Testing

/// An existing keychain finds the device key it was made with wherever the user's processes kept
/// it (`KeychainDatabase.Options.earlierDeviceKeyPaths`), chosen by the identifier the file
/// stores; a key it cannot use safely is passed over, never allowed to stop the open.
@Suite("device key location")
struct DeviceKeyLocationTests {
    @Test("a keychain made with the key at an earlier location opens its ThisDeviceOnly items when the first location holds another key")
    func earlierLocationIsFound() throws {
        let keychain = try TemporaryKeychain()
        defer { keychain.remove() }
        let earlier = keychain.deviceKeyPath
        let database = try keychain.open(password: "pw")
        _ = try database.insert(genericPassword(account: "bound", secret: "b", protection: .whenUnlockedThisDeviceOnly))

        var options = keychain.options
        options.deviceKeyPath = keychain.directoryURL.appendingPathComponent("account-home/device.key").path
        // Without the earlier location, the keychain looks moved: its bound item is unavailable.
        let moved = try KeychainDatabase.open(path: keychain.path, password: Data("pw".utf8), options: options)
        #expect(storeError { _ = try readSecret(moved, account: "bound") }?.osStatus == -25291)

        options.earlierDeviceKeyPaths = [earlier]
        let found = try KeychainDatabase.open(path: keychain.path, password: Data("pw".utf8), options: options)
        #expect(try readSecret(found, account: "bound") == "b")
        #expect(found.deviceBoundClassesAvailable)
    }

    @Test("an earlier location holding a key of the wrong size, another mode or a symlink is passed over; the open still succeeds")
    func unusableEarlierKeyIsSkipped() throws {
        let keychain = try TemporaryKeychain()
        defer { keychain.remove() }
        let database = try keychain.open(password: "pw")
        _ = try database.insert(genericPassword(account: "portable", secret: "p"))
        let directory = keychain.directoryURL.appendingPathComponent("planted").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let short = directory + "/short.key"
        #expect(FileManager.default.createFile(atPath: short, contents: Data(repeating: 1, count: 7), attributes: [.posixPermissions: 0o600]))
        let loose = directory + "/loose.key"
        #expect(FileManager.default.createFile(atPath: loose, contents: Data(repeating: 2, count: 32), attributes: [.posixPermissions: 0o644]))
        #expect(chmod(loose, 0o644) == 0)
        let link = directory + "/link.key"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: keychain.deviceKeyPath)

        var options = keychain.options
        options.deviceKeyPath = directory + "/primary.key"
        options.earlierDeviceKeyPaths = [short, loose, link]
        let opened = try KeychainDatabase.open(path: keychain.path, password: Data("pw".utf8), options: options)
        #expect(try readSecret(opened, account: "portable") == "p")
        #expect(!opened.deviceBoundClassesAvailable, "none of the planted keys is taken as the keychain's own")
    }
}
