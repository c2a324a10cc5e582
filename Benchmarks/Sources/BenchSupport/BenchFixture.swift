import Foundation
import KeychainServices
import KeychainBenchmarkSupport

#if canImport(Glibc)
import Glibc
#endif

/// Keychain files for the benchmarks: file keychains with a password, holding `count` generic
/// passwords (service `bench`, accounts `acct-000000`…, 32 random bytes in base64 each, accessibility
/// WhenUnlocked — what `SecItemAdd` stores by default).
///
/// Populating 100k items one `SecItemAdd` at a time on the real disk would cost one fsync per item
/// (the keychain runs SQLite with `synchronous = FULL`), about 30 s. So each size is built once per
/// run as a *template*: the items are added through the engine behind `SecItemAdd`
/// (KeychainBenchmarkSupport's `BenchmarkKeychains.populate`: same parsing, defaults, encryption and one
/// transaction per item) to a
/// keychain on tmpfs (`/dev/shm`, where fsync costs nothing), starting from the next smaller
/// template. The database is then closed (SQLite checkpoints the WAL into the file) and the file
/// copied to the work directory on the real disk. Every benchmark process copies the template of
/// its size to a fresh file there and opens that. Nothing of this is measured.
///
/// Item keychains use the cheap test KDF (scrypt N = 2^4): it runs only when the keychain is opened,
/// never in an item operation. The unlock benchmark uses a keychain with the real, calibrated scrypt.
public enum BenchFixture {
    public static let service = "bench"
    public static let accessGroup = "com.example.bench"
    public static let password = Data("bench-password".utf8)
    /// Store sizes every item operation is measured at.
    public static let sizes = [10, 100, 1_000, 10_000, 100_000]

    /// `acct-000042`.
    public static func account(_ index: Int) -> String { "acct-" + zeroPadded(index) }
    /// An account that is never stored.
    public static func missingAccount(_ index: Int) -> String { "miss-" + zeroPadded(index) }
    /// 4,096 accounts that are never stored, made once, for misses timed without their name's
    /// formatting (bench/interleaved_reads_floor.py makes the same names for the floor's misses).
    public static let missingAccounts = (0..<4_096).map { missingAccount($0 &* 241) }

    private static func zeroPadded(_ index: Int) -> String {
        let digits = String(index)
        return String(repeating: "0", count: max(0, 6 - digits.count)) + digits
    }

    /// A secret: 32 random bytes, base64-encoded (44 ASCII characters, as the anchors store in
    /// text-only stores), so the typed API's `string(forKey:)` can read every item.
    public static func secretText() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<4).flatMap { _ in withUnsafeBytes(of: generator.next() as UInt64) { Array($0) } }
        return Data(bytes).base64EncodedString()
    }

    /// `secretText()` as bytes (what `kSecValueData` gets).
    public static func secret() -> Data { Data(secretText().utf8) }

    /// `KEYCHAINKIT_BENCH_DIR`, else `$TMPDIR/keychainkit-bench-<uid>`: templates, device key,
    /// the keychains under test and the fsync probe file all live here, on the disk measured.
    public static var workDirectory: String {
        if let dir = ProcessInfo.processInfo.environment["KEYCHAINKIT_BENCH_DIR"], !dir.isEmpty { return dir }
        return NSTemporaryDirectory().appending("keychainkit-bench-\(getuid())")
    }

    static var deviceKeyPath: String { workDirectory + "/device.key" }

    /// Sets up this process as an app is configured, through its environment: an
    /// ordinary desktop environment of at least 40 variables (`RealisticEnvironment`), its own
    /// device key, the app id `com.example.bench` (its only access group), and no session-keyring
    /// sharing (nothing is published to, or adopted from, the user's kernel keyring) unless
    /// `sharingUnlockWithSession`. The test KDF is accepted. KeychainKit reads its configuration
    /// once, at the first keychain call, so this runs before anything touches a keychain.
    public static func configureProcess(sharingUnlockWithSession: Bool = false) {
        try? FileManager.default.createDirectory(atPath: workDirectory, withIntermediateDirectories: true,
                                                 attributes: [.posixPermissions: 0o700])
        RealisticEnvironment.fill()
        setenv("KEYCHAINKIT_SESSION_KEYRING", sharingUnlockWithSession ? "on" : "off", 1)
        setenv("KEYCHAINKIT_DEVICE_KEY_FILE", deviceKeyPath, 1)
        setenv("KEYCHAINKIT_APP_ID", accessGroup, 1)
        unsetenv("KEYCHAINKIT_ACCESS_GROUPS")
        unsetenv("KEYCHAINKIT_PASSWORD_FILE")
        BenchmarkKeychains.allowTestingKDF()
    }

    /// The add dictionary of item `index`, as an app would pass it to `SecItemAdd`.
    public static func addQuery(account: String, data: Data) -> [String: Any] {
        [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service,
            kSecAttrAccount as String: account,
            kSecValueData as String: data,
        ]
    }

    // MARK: Templates

    private static func templatePath(_ count: Int) -> String { workDirectory + "/template-\(count).keychain-db" }

    /// The template keychain with `count` items (built on first use, then reused by every process of the run).
    public static func template(items count: Int) throws -> String {
        let path = templatePath(count)
        if FileManager.default.fileExists(atPath: path) { return path }
        let smaller = sizes.filter { $0 < count }.reversed().first { FileManager.default.fileExists(atPath: templatePath($0)) }
        let scratchRoot = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : workDirectory
        let scratch = scratchRoot + "/keychainkit-bench-populate-\(getpid())"
        try? FileManager.default.removeItem(atPath: scratch)
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let scratchFile = scratch + "/populate.keychain-db"
        if let smaller { try copyKeychain(templatePath(smaller), to: scratchFile) }
        try populate(scratchFile, from: smaller ?? 0, to: count, calibratedKDF: false)
        let temporary = path + ".partial-\(getpid())"
        try copyKeychain(scratchFile, to: temporary)
        try FileManager.default.moveItem(atPath: temporary, toPath: path)
        return path
    }

    /// Adds items `start..<end` to the keychain at `path` (created if missing) through
    /// the engine behind `SecItemAdd`, one transaction per item, then closes it so the WAL is checkpointed.
    public static func populate(_ path: String, from start: Int, to end: Int, calibratedKDF: Bool,
                                password: Data? = BenchFixture.password) throws {
        try BenchmarkKeychains.populate(path: path, password: password, deviceKeyPath: deviceKeyPath,
                                        calibratedKDF: calibratedKDF, accessGroup: accessGroup,
                                        items: (start..<end).lazy.map { addQuery(account: account($0), data: secret()) })
    }

    /// Copies a closed keychain file (and its WAL, if one was left) with mode 0600.
    static func copyKeychain(_ source: String, to destination: String) throws {
        for suffix in ["", "-wal"] {
            try? FileManager.default.removeItem(atPath: destination + suffix)
            guard FileManager.default.fileExists(atPath: source + suffix) else { continue }
            try FileManager.default.copyItem(atPath: source + suffix, toPath: destination + suffix)
            chmod(destination + suffix, 0o600)
        }
    }

    // MARK: Keychains under test

    /// A fresh copy of the `count`-item template, opened (unlocked with its password), registered,
    /// and named by `KEYCHAINKIT_KEYCHAIN` as this process's default keychain, so `SecItem*` and
    /// `Keychain` use it exactly as an app's calls do. Throws if the process's keychain
    /// configuration was read before (then the environment set here would not count).
    /// With `rollbackAnchor`, the copy is opened with a rollback anchor of its own (enrolled at
    /// this open), so every write also seals a generation and raises the anchor.
    public static func openKeychain(items count: Int, rollbackAnchor: Bool = false) throws -> OpenKeychain {
        let template = try template(items: count)
        let path = workDirectory + "/run-\(count)-\(getpid()).keychain-db"
        try copyKeychain(template, to: path)
        let anchors = rollbackAnchor ? workDirectory + "/anchors-\(getpid())" : nil
        let database = try BenchmarkKeychains.openAndRegister(path: path, password: password, deviceKeyPath: deviceKeyPath,
                                                              rollbackAnchorDirectory: anchors)
        setenv("KEYCHAINKIT_KEYCHAIN", path, 1)
        guard BenchmarkKeychains.defaultKeychainPath == path, RealisticEnvironment.count >= RealisticEnvironment.minimumCount else {
            throw BenchError("the keychain configuration was read before the benchmark set its environment")
        }
        return OpenKeychain(path: path, database: database, count: count, anchorDirectory: anchors)
    }

    /// A second, independent handle on the keychain file at `path` (its own SQLite connection),
    /// opened with the benchmark password: what a new process pays before its first item call.
    /// The handle is returned only to be kept alive (or handed to `blackHole`); it closes when released.
    public static func reopen(_ path: String) throws -> AnyObject {
        try BenchmarkKeychains.open(path: path, password: password, deviceKeyPath: deviceKeyPath)
    }

    /// A keychain with the real scrypt, calibrated on this machine when it is created (as
    /// `SecKeychainCreate` and `keychainctl create-keychain` do), with 10 items.
    public static func calibratedKeychain() throws -> String {
        let path = workDirectory + "/calibrated.keychain-db"
        if !FileManager.default.fileExists(atPath: path) {
            let temporary = workDirectory + "/calibrated-\(getpid()).partial"
            try? FileManager.default.removeItem(atPath: temporary)
            try populate(temporary, from: 0, to: 10, calibratedKDF: true)
            try copyKeychain(temporary, to: path)
            try? FileManager.default.removeItem(atPath: temporary)
        }
        return path
    }
}

/// A keychain file opened for one benchmark.
public struct OpenKeychain {
    public let path: String
    let database: BenchmarkKeychain
    public let count: Int
    /// The rollback anchor's directory, if the keychain was opened with one.
    public let anchorDirectory: String?

    /// Publishes the unlock to the session's kernel keyring and marks it as the session's, as an
    /// unlock does with sharing on. Returns false if the kernel keyring refused it.
    public func shareUnlockWithSession() throws -> Bool {
        try BenchmarkKeychains.shareUnlockWithSession(database)
    }

    /// Removes what `shareUnlockWithSession()` published from the kernel keyring.
    public func withdrawSessionUnlock() {
        BenchmarkKeychains.withdrawSessionUnlock(database)
    }

    /// Forgets the keychain and deletes its files (and its anchor).
    public func remove() {
        BenchmarkKeychains.forget(path: path)
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        if let anchorDirectory { try? FileManager.default.removeItem(atPath: anchorDirectory) }
    }
}

public struct BenchError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
