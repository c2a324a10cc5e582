import Foundation
import KeychainEngine
import KeychainServices
import KeychainStore
import KeychainVocabulary
import PrivateBusSupport
import Testing
#if canImport(Glibc)
import Glibc
import RequiredToolSupport
#endif

/// Biometry through a real fprintd (Debian's `fprintd`, `libfprint-2-2`) on a private D-Bus bus,
/// with libfprint's virtual reader standing in for the finger: each test starts its own bus,
/// polkit stand-in and fprintd (`FprintdHarness`), enrolls a print, and presents matching or
/// non-matching prints while KeychainKit verifies. The harness stops every daemon when the test
/// ends, whatever its outcome.
@Suite("Biometry through fprintd", .serialized, .timeLimit(.minutes(2)), .integration, .tags(.external, .dbus, .fprintd))
struct BiometryTests {
    private func harness() throws -> FprintdHarness {
        try RequiredTool.require(FprintdHarness.requiredTools)
        return try FprintdHarness()
    }

    private func engine(_ biometry: BiometryConfiguration?, password: String? = "device-passcode") throws -> SecItemEngine {
        SecItemEngine(database: try KeychainDatabase.inMemory(password: password.map { Data($0.utf8) }),
                      accessGroups: AccessGroups(["app"]), authenticator: OwnerAuthenticator(pinentry: nil, biometry: biometry))
    }

    private func add(_ engine: SecItemEngine, account: String, flags: SecAccessControlCreateFlags) throws -> OSStatus {
        let access = try #require(SecAccessControlCreateWithFlags(kCFAllocatorDefault, kSecAttrAccessibleWhenUnlockedThisDeviceOnly, flags, nil))
        return engine.add([
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "svc",
            kSecAttrAccount as String: account, kSecValueData as String: Data("secret-\(account)".utf8),
            kSecAttrAccessControl as String: access,
        ]).status
    }

    /// Presents `prints` to the next verification, on another thread, each attempt finding its
    /// finger already on the reader (``FprintdHarness/presentToNextVerification(_:waitingUpTo:)``);
    /// then `ifStillOpen`, consumed only by further attempts — with several fingers enrolled,
    /// fprintd verifies whichever it lists first (readers without identification), so both prints
    /// are offered. Call it right before the call that verifies; the result is whether the
    /// verification took place and ended.
    private func present(_ prints: [String], ifStillOpen extra: [String] = [], to harness: FprintdHarness) -> ThreadResult<Bool> {
        do {
            try harness.holdAuthorizations()
        } catch {
            Issue.record("the polkit stand-in did not take SimulateHang: \(error)")
            return Thread.detachResult { false }
        }
        return Thread.detachResult {
            do {
                try harness.presentToNextVerification(prints + extra)
                return true
            } catch {
                return false
            }
        }
    }

    /// A context on `configuration` once asked `canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics)`:
    /// the context, its answer, and the code of the error it gave.
    private func evaluatedContext(_ configuration: BiometryConfiguration) -> (context: LAContext, canEvaluate: Bool, errorCode: Int?) {
        let context = LAContext()
        context.biometryConfiguration = configuration
        var error: NSError?
        let canEvaluate = context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: &error)
        return (context, canEvaluate, error?.code)
    }

    private func secret(_ account: String) -> Data { Data("secret-\(account)".utf8) }

    /// The `.biometryCurrentSet` combinations an add or update must refuse when there is no
    /// enrolled set: alone, with `and`, and with `or` (the devicePasscode alternative does not
    /// make an unreadable biometric binding acceptable, as on Apple's keychain).
    private static let currentSetPolicies: [SecAccessControlCreateFlags] = [
        .biometryCurrentSet, [.biometryCurrentSet, .or, .devicePasscode], [.biometryCurrentSet, .and, .devicePasscode],
    ]

    /// Expects `result` to be the refusal of a `.biometryCurrentSet` write because `absence`:
    /// -25293, with a reason that names the cause and the ways out, and no secret.
    private func expectRefused(_ result: SecItemResult, because absence: BiometryAbsence,
                               sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.status == errSecAuthFailed, sourceLocation: sourceLocation)
        #expect(result.failure?.reason == .biometrySetUnavailable(absence), sourceLocation: sourceLocation)
        let reason = result.failure?.explanation ?? ""
        let cause = switch absence {
        case .noService: "no fingerprint service (fprintd) answered"
        case .noReader: "fprintd has no fingerprint reader"
        case .noFingerEnrolled: "no finger is enrolled (enrol one with fprintd-enroll)"
        }
        #expect(reason.contains(cause), "\(reason)", sourceLocation: sourceLocation)
        #expect(reason.contains("Nothing was stored or changed"), "\(reason)", sourceLocation: sourceLocation)
        #expect(reason.contains(".biometryAny") && reason.contains(".userPresence"), "\(reason)", sourceLocation: sourceLocation)
        #expect(!reason.contains("secret-"), sourceLocation: sourceLocation)
    }

    private func addResult(_ engine: SecItemEngine, account: String, flags: SecAccessControlCreateFlags) throws -> SecItemResult {
        let access = try #require(SecAccessControlCreateWithFlags(kCFAllocatorDefault, kSecAttrAccessibleWhenUnlockedThisDeviceOnly, flags, nil))
        return engine.add([
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "svc",
            kSecAttrAccount as String: account, kSecValueData as String: secret(account),
            kSecAttrAccessControl as String: access,
        ])
    }

    /// Checks every refusal of a keychain where no enrolled set can be bound (`absence`): adds of
    /// each `.biometryCurrentSet` combination store nothing; updates giving a stored item such an
    /// access control leave it, and the keychain file, exactly as they were. `.biometryAny` is
    /// still stored (it opens with any finger enrolled later).
    private func expectNothingBound(on disk: KeychainOnDisk, because absence: BiometryAbsence,
                                    sourceLocation: SourceLocation = #_sourceLocation) throws {
        let engine = disk.engine
        #expect(engine.add([kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "svc",
                            kSecAttrAccount as String: "plain", kSecValueData as String: secret("plain"),
                            kSecAttrAccessible as String: kSecAttrAccessibleWhenUnlocked]).status == errSecSuccess,
                sourceLocation: sourceLocation)
        let before = try disk.storedItems()
        let bytesBefore = disk.fileBytes()
        for (index, flags) in Self.currentSetPolicies.enumerated() {
            expectRefused(try addResult(engine, account: "current-\(index)", flags: flags), because: absence, sourceLocation: sourceLocation)
            #expect(engine.readSecret(account: "current-\(index)").status == errSecItemNotFound, sourceLocation: sourceLocation)

            let access = try #require(SecAccessControlCreateWithFlags(kCFAllocatorDefault, kSecAttrAccessibleWhenUnlockedThisDeviceOnly, flags, nil))
            let plain: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "plain"]
            let update = engine.updateOutcome(plain, [kSecAttrAccessControl as String: access, kSecValueData as String: Data("changed".utf8)])
            expectRefused(update, because: absence, sourceLocation: sourceLocation)
        }
        // On disk: no new item, the old one as it was (attributes, dates, secret, no access
        // control), and not a byte of the file changed.
        let after = try disk.storedItems()
        #expect(after.map(\.persistentID) == before.map(\.persistentID), sourceLocation: sourceLocation)
        let old = try #require(before.first, sourceLocation: sourceLocation)
        let kept = try #require(after.first, sourceLocation: sourceLocation)
        #expect(kept.attributes == old.attributes && kept.data == secret("plain") && kept.accessControl == nil
                && kept.protection == old.protection, sourceLocation: sourceLocation)
        #expect(disk.fileBytes() == bytesBefore, sourceLocation: sourceLocation)
        #expect(engine.readSecret(account: "plain").value as? Data == secret("plain"), sourceLocation: sourceLocation)

        #expect(try add(engine, account: "any", flags: .biometryAny) == errSecSuccess, sourceLocation: sourceLocation)
        #expect(try disk.storedItems().count == 2, sourceLocation: sourceLocation)
    }

    /// The domain state the stored item `account` is bound to.
    private func boundState(_ disk: KeychainOnDisk, _ account: String) throws -> Data? {
        try disk.storedItems().first { $0.attributes["acct"] == .string(account) }?.accessControl?.biometryDomainState
    }

    @Test("a matching finger opens .biometryAny and .biometryCurrentSet items; the context is reused without a new scan")
    func matchingFinger() throws {
        let harness = try harness()
        try harness.enroll(finger: "right-index-finger", print: "print-a")
        let engine = try engine(harness.configuration)
        #expect(try add(engine, account: "any", flags: .biometryAny) == errSecSuccess)
        #expect(try add(engine, account: "current", flags: .biometryCurrentSet) == errSecSuccess)

        let context = LAContext()
        context.biometryConfiguration = harness.configuration
        var error: NSError?
        #expect(context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: &error))
        #expect(error == nil)
        #expect(context.biometryType == .touchID)
        #expect(context.evaluatedPolicyDomainState?.count == 32)

        let scanned = present(["print-a"], to: harness)
        let first = engine.readSecret(account: "current", context: context)
        #expect(scanned.value == true)
        #expect(first.status == errSecSuccess)
        #expect(first.value as? Data == secret("current"))
        // The same context opens the other item without touching the reader again.
        #expect(engine.readSecret(account: "any", context: context).value as? Data == secret("any"))
        // Without a context, a prompt is needed and none is allowed: -25308 at once.
        #expect(engine.readSecret(account: "any", ui: kSecUseAuthenticationUIFail).status == errSecInteractionNotAllowed)
    }

    @Test("the seeds' flow: evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics), then a read with the evaluated context")
    func evaluateThenRead() async throws {
        let harness = try harness()
        try harness.enroll(finger: "right-index-finger", print: "print-a")
        let engine = try engine(harness.configuration)
        #expect(try add(engine, account: "current", flags: .biometryCurrentSet) == errSecSuccess)
        let context = LAContext()
        context.biometryConfiguration = harness.configuration
        let scanned = present(["print-a"], to: harness)
        let success = try await context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "Unlock the test secret")
        #expect(success)
        #expect(scanned.value == true)
        // The evaluated context proves the finger without a new scan; the enrolled set is still
        // checked against the one the item was stored with.
        #expect(engine.readSecret(account: "current", context: context).value as? Data == secret("current"))
    }

    @Test("a finger that does not match, three times: reads fail -25293, evaluatePolicy fails authenticationFailed")
    func nonMatchingFinger() async throws {
        let harness = try harness()
        try harness.enroll(finger: "right-index-finger", print: "print-a")
        let engine = try engine(harness.configuration)
        #expect(try add(engine, account: "any", flags: .biometryAny) == errSecSuccess)
        let scanned = present(["print-b", "print-b", "print-b"], to: harness)
        #expect(engine.readSecret(account: "any", context: LAContext()).status == errSecAuthFailed)
        #expect(scanned.value == true)

        let context = LAContext()
        context.biometryConfiguration = harness.configuration
        let again = present(["print-b", "print-b", "print-b"], to: harness)
        await #expect(throws: LAError.self) {
            _ = try await context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "test")
        }
        #expect(again.value == true)
        // A later match still works: nothing locks the reader out.
        let matching = present(["print-b", "print-a"], to: harness)
        #expect(engine.readSecret(account: "any", context: LAContext()).value as? Data == secret("any"))
        #expect(matching.value == true)
    }

    @Test("a VerifyStatus(\"verify-match\") forged by another client on the bus while a verification waits does not authenticate")
    func forgedMatchSignal() throws {
        let harness = try harness()
        try harness.enroll(finger: "right-index-finger", print: "print-a")
        let engine = try engine(harness.configuration)
        #expect(try add(engine, account: "any", flags: .biometryAny) == errSecSuccess)
        // Once the verification is under way (it waits for a finger), the attacker's forged
        // match arrives first; only then are real, non-matching fingers presented.
        try harness.holdAuthorizations()
        let attacked = Thread.detachResult { () -> String in
            do {
                try harness.presentToNextVerification(["print-b", "print-b", "print-b"]) { try harness.forgeVerifyMatch() }
                return "forged, then three wrong fingers"
            } catch {
                return "\(error)"
            }
        }
        #expect(engine.readSecret(account: "any", context: LAContext()).status == errSecAuthFailed)
        #expect(attacked.value == "forged, then three wrong fingers")
    }

    @Test("cancel: invalidating the context during a scan → -128 / LAError.appCancel; no finger in time → -128")
    func cancel() async throws {
        let harness = try harness()
        try harness.enroll(finger: "right-index-finger", print: "print-a")
        let engine = try engine(harness.configuration)
        #expect(try add(engine, account: "any", flags: .biometryAny) == errSecSuccess)

        let context = LAContext()
        let cancelled = Thread.detachResult {
            do {
                try harness.waitUntilClaimed()
                usleep(300_000)
                context.invalidate()
                return true
            } catch {
                return false
            }
        }
        #expect(engine.readSecret(account: "any", context: context).status == errSecUserCanceled)
        #expect(cancelled.value == true)

        let evaluating = LAContext()
        evaluating.biometryConfiguration = harness.configuration
        let stopper = Thread.detachResult {
            do {
                try harness.waitUntilClaimed()
                evaluating.invalidate()
                return true
            } catch {
                return false
            }
        }
        do {
            _ = try await evaluating.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "test")
            Issue.record("the evaluation was not cancelled")
        } catch {
            #expect((error as NSError).code == LAError.Code.appCancel.rawValue)
        }
        #expect(stopper.value == true)

        var impatient = harness.configuration
        impatient.verifyTimeout = 1
        let started = Date()
        let timedOutEngine = SecItemEngine(database: engine.database, accessGroups: AccessGroups(["app"]),
                                           authenticator: OwnerAuthenticator(pinentry: nil, biometry: impatient))
        #expect(timedOutEngine.readSecret(account: "any", context: LAContext()).status == errSecUserCanceled)
        // Which timeout applied (1 s, not the default 20 s), not a speed claim: the bound is 15 s.
        #expect(Date().timeIntervalSince(started) < 15, "the 1 s verification timeout, not the 20 s one")
    }

    @Test("enrolling another finger invalidates .biometryCurrentSet items (-25293, no scan asked, never re-bound by an update), not .biometryAny ones")
    func enrolledSetChange() throws {
        let harness = try harness()
        try harness.enroll(finger: "right-index-finger", print: "print-a")
        let engine = try engine(harness.configuration)
        #expect(try add(engine, account: "current", flags: .biometryCurrentSet) == errSecSuccess)
        #expect(try add(engine, account: "any", flags: .biometryAny) == errSecSuccess)
        let context = LAContext()
        context.biometryConfiguration = harness.configuration
        var error: NSError?
        #expect(context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: &error))
        let before = context.evaluatedPolicyDomainState

        try harness.enroll(finger: "left-index-finger", print: "print-c")
        let after = LAContext()
        after.biometryConfiguration = harness.configuration
        #expect(after.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: &error))
        #expect(after.evaluatedPolicyDomainState != nil && after.evaluatedPolicyDomainState != before)

        // Refused without a verification: one that waited for a finger would end in its timeout
        // (errSecUserCanceled) or, with a finger, succeed; -25293 is the refusal itself.
        #expect(engine.readSecret(account: "current", context: LAContext()).status == errSecAuthFailed)

        let scanned = present(["print-a"], ifStillOpen: ["print-c"], to: harness)
        #expect(engine.readSecret(account: "any", context: LAContext()).value as? Data == secret("any"))
        #expect(scanned.value == true)
        // An item stored under the new set is readable with a finger of that set.
        #expect(try add(engine, account: "current-2", flags: .biometryCurrentSet) == errSecSuccess)
        let newFinger = present(["print-c"], ifStillOpen: ["print-a"], to: harness)
        #expect(engine.readSecret(account: "current-2", context: LAContext()).value as? Data == secret("current-2"))
        #expect(newFinger.value == true)
        // The invalidated item is never re-bound to the new set (that would make it readable by a
        // finger enrolled after it was stored, the attack .biometryCurrentSet stops): giving it its access
        // control again, or none, fails as reading it does — no finger asked — and it stays invalid.
        let access = try #require(SecAccessControlCreateWithFlags(kCFAllocatorDefault, kSecAttrAccessibleWhenUnlockedThisDeviceOnly,
                                                                   .biometryCurrentSet, nil))
        let currentQuery: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "current"]
        #expect(engine.update(currentQuery, [kSecAttrAccessControl as String: access]) == errSecAuthFailed)
        #expect(engine.update(currentQuery, [kSecAttrAccessible as String: kSecAttrAccessibleWhenUnlocked]) == errSecAuthFailed)
        #expect(engine.readSecret(account: "current", context: LAContext()).status == errSecAuthFailed)
    }

    @Test("user presence takes a fingerprint first; no enrolled finger: biometryNotEnrolled and the passcode path")
    func userPresenceAndNotEnrolled() throws {
        let harness = try harness()
        let engine = try engine(harness.configuration)
        #expect(try add(engine, account: "presence", flags: .userPresence) == errSecSuccess)
        #expect(try add(engine, account: "any", flags: .biometryAny) == errSecSuccess)
        let (context, canEvaluate, errorCode) = evaluatedContext(harness.configuration)
        #expect(!canEvaluate)
        #expect(errorCode == LAError.Code.biometryNotEnrolled.rawValue)
        #expect(context.biometryType == .touchID, "a reader is present, though nothing is enrolled")
        #expect(engine.readSecret(account: "any", context: LAContext()).status == errSecAuthFailed)
        // Nothing enrolled: user presence falls back to the passcode, and no prompt program exists.
        #expect(engine.readSecret(account: "presence", context: LAContext()).status == errSecInteractionNotAllowed)

        try harness.enroll(finger: "right-index-finger", print: "print-a")
        let scanned = present(["print-a"], to: harness)
        #expect(engine.readSecret(account: "presence", context: LAContext()).value as? Data == secret("presence"))
        #expect(scanned.value == true)
    }

    @Test("without fprintd (no bus, a bus without fprintd, a bus that never answers, none configured): .biometryCurrentSet adds and updates are refused -25293 and nothing is stored")
    func withoutFprintd() throws {
        let directory = try #require(mkdtemp(strdup("/tmp/kk-nofprint-XXXXXX")).map { String(cString: $0) })
        defer { try? FileManager.default.removeItem(atPath: directory) }

        // A socket that accepts connections (the kernel's backlog) but never answers.
        let silent = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(silent) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let silentPath = "\(directory)/silent"
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in silentPath.utf8.enumerated() { buffer[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(silent, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        #expect(bound == 0 && listen(silent, 8) == 0)

        var configurations = [
            BiometryConfiguration(busAddress: "unix:path=\(directory)/no-such-bus", callTimeout: 0.5),
            BiometryConfiguration(busAddress: "unix:path=\(silentPath)", callTimeout: 0.5),
        ]
        var bus: PrivateBus?
        if FprintdHarness.isAvailable {
            let privateBus = try PrivateBus()
            bus = privateBus
            configurations.append(BiometryConfiguration(busAddress: privateBus.address, callTimeout: 0.5))
        }
        defer { bus?.stop() }

        // No elapsed-time assertion (the project's rule: no timed assertions in tests). The bus
        // that never answers is bounded by the configuration's call timeout; were it not, this
        // test would not finish and the run's own time limit would report it.
        for configuration in configurations + [nil] {
            // nil: biometry not configured at all.
            let disk = try KeychainOnDisk(biometry: configuration)
            try expectNothingBound(on: disk, because: .noService)
            guard let configuration else { continue }
            let engine = disk.engine
            let (context, canEvaluate, errorCode) = evaluatedContext(configuration)
            #expect(!canEvaluate)
            #expect(errorCode == LAError.Code.biometryNotAvailable.rawValue)
            #expect(context.biometryType == .none)
            #expect(context.evaluatedPolicyDomainState == nil)
            #expect(engine.readSecret(account: "any", context: context).status == errSecAuthFailed)
        }
    }


    @Test("fprintd without a reader: .biometryCurrentSet adds and updates are refused -25293 naming the missing reader; LAContext says biometryNotAvailable")
    func noReader() throws {
        let harness = try FprintdHarness(reader: false)
        let disk = try KeychainOnDisk(biometry: harness.configuration)
        try expectNothingBound(on: disk, because: .noReader)
        let (context, canEvaluate, errorCode) = evaluatedContext(harness.configuration)
        #expect(!canEvaluate)
        #expect(errorCode == LAError.Code.biometryNotAvailable.rawValue)
        #expect(context.evaluatedPolicyDomainState == nil)
    }

    @Test("a reader with no finger enrolled: .biometryCurrentSet refused -25293 and nothing stored; once a finger is enrolled the item is bound to that set and opens with it")
    func noFingerEnrolled() throws {
        let harness = try FprintdHarness()
        let disk = try KeychainOnDisk(biometry: harness.configuration)
        try expectNothingBound(on: disk, because: .noFingerEnrolled)
        // LocalAuthentication is unaffected: it still reports the reader and no enrolled finger.
        let (_, canEvaluate, errorCode) = evaluatedContext(harness.configuration)
        #expect(!canEvaluate)
        #expect(errorCode == LAError.Code.biometryNotEnrolled.rawValue)

        try harness.enroll(finger: "right-index-finger", print: "print-a")
        let (enrolled, canEvaluateEnrolled, _) = evaluatedContext(harness.configuration)
        #expect(canEvaluateEnrolled)
        let domainState = try #require(enrolled.evaluatedPolicyDomainState)
        #expect(try add(disk.engine, account: "current", flags: [.biometryCurrentSet, .or, .devicePasscode]) == errSecSuccess)
        #expect(try boundState(disk, "current") == domainState)
        let scanned = present(["print-a"], to: harness)
        #expect(disk.engine.readSecret(account: "current", context: LAContext()).value as? Data == secret("current"))
        #expect(scanned.value == true)
        // The update that was refused before now binds the plain item to the enrolled set.
        let access = try #require(SecAccessControlCreateWithFlags(kCFAllocatorDefault, kSecAttrAccessibleWhenUnlockedThisDeviceOnly,
                                                                   .biometryCurrentSet, nil))
        let plain: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "plain"]
        #expect(disk.engine.update(plain, [kSecAttrAccessControl as String: access]) == errSecSuccess)
        #expect(try boundState(disk, "plain") == domainState)
    }

    @Test("an fprintd that answers after the call timeout: refused -25293, nothing stored; one that answers late but in time: bound to the real set")
    func slowFprintd() throws {
        let harness = try FprintdHarness()
        try harness.enroll(finger: "right-index-finger", print: "print-a")
        var impatient = harness.configuration
        impatient.callTimeout = 1
        let disk = try KeychainOnDisk(biometry: impatient)
        let bytesBefore = disk.fileBytes()

        // fprintd asks polkit before listing the enrolled fingers; the stand-in holds the answer.
        try harness.holdAuthorizations()
        let held = Thread.detachResult { () -> Bool in
            do {
                try harness.waitUntilAuthorizationHeld()
                return true
            } catch {
                return false
            }
        }
        expectRefused(try addResult(disk.engine, account: "current", flags: .biometryCurrentSet), because: .noService)
        #expect(held.value == true)
        try harness.releaseAuthorizations()
        #expect(try disk.storedItems().isEmpty)
        #expect(disk.fileBytes() == bytesBefore)

        // Held, then let through while the add still waits: the add binds to the set fprintd gave.
        let patient = try KeychainOnDisk(biometry: harness.configuration)
        try harness.holdAuthorizations()
        let released = Thread.detachResult { () -> Bool in
            do {
                try harness.waitUntilAuthorizationHeld()
                usleep(300_000)
                try harness.releaseAuthorizations()
                return true
            } catch {
                return false
            }
        }
        #expect(try add(patient.engine, account: "current", flags: .biometryCurrentSet) == errSecSuccess)
        #expect(released.value == true)
        let (context, canEvaluate, _) = evaluatedContext(harness.configuration)
        #expect(canEvaluate)
        #expect(try boundState(patient, "current") == context.evaluatedPolicyDomainState)
    }

    @Test("answers forged by another client while an add waits for fprintd (enrolled fingers, a match signal) are not what the item is bound to")
    func forgedStateAnswers() throws {
        let harness = try FprintdHarness()
        try harness.enroll(finger: "right-index-finger", print: "print-a")
        let disk = try KeychainOnDisk(biometry: harness.configuration)
        try harness.holdAuthorizations()
        let attacked = Thread.detachResult { () -> String in
            do {
                try harness.waitUntilAuthorizationHeld()
                try harness.forgeEnrolledFingers(["forged-finger"])
                try harness.releaseAuthorizations()
                return "forged, then released"
            } catch {
                return "\(error)"
            }
        }
        #expect(try add(disk.engine, account: "current", flags: .biometryCurrentSet) == errSecSuccess)
        #expect(attacked.value == "forged, then released")
        let (context, canEvaluate, _) = evaluatedContext(harness.configuration)
        #expect(canEvaluate)
        let bound = try boundState(disk, "current")
        #expect(bound != nil && bound == context.evaluatedPolicyDomainState, "bound to fprintd's real set")
        let scanned = present(["print-a"], to: harness)
        #expect(disk.engine.readSecret(account: "current", context: LAContext()).value as? Data == secret("current"))
        #expect(scanned.value == true)
    }

    @Test("an item an earlier version stored unbound (while fprintd did not answer) stays unreadable (-25293, no scan); updates that leave its access control alone are refused as its reads are and change nothing; it can be deleted")
    func unboundItemOfAnEarlierVersion() throws {
        let harness = try FprintdHarness()
        try harness.enroll(finger: "right-index-finger", print: "print-a")
        let disk = try KeychainOnDisk(biometry: harness.configuration)
        // Written as earlier versions did: .biometryCurrentSet with no domain state.
        let unbound = try AccessControlPolicy(protection: .whenUnlockedThisDeviceOnly, flags: AccessControlPolicy.biometryCurrentSet)
        _ = try disk.engine.database.insert(NewItem(itemClass: .genericPassword,
                                                    attributes: ["agrp": .string("app"), "sync": .number(0), "svce": .string("svc"), "acct": .string("old")],
                                                    data: secret("old"), protection: .whenUnlockedThisDeviceOnly, accessControl: unbound))
        let before = try #require(try disk.storedItems().first)
        #expect(before.accessControl?.biometryDomainState == nil)
        let bytesBefore = disk.fileBytes()

        // Refused at once: a verification would wait for a finger, and none is presented.
        #expect(disk.engine.readSecret(account: "old", context: LAContext()).status == errSecAuthFailed)
        let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "old"]
        #expect(disk.engine.update(query, [kSecAttrLabel as String: "renamed"]) == errSecAuthFailed)
        let kept = try #require(try disk.storedItems().first)
        #expect(kept.attributes == before.attributes && kept.accessControl == before.accessControl && kept.data == secret("old"))
        #expect(disk.fileBytes() == bytesBefore)
        #expect(disk.engine.delete(query) == errSecSuccess)
        #expect(try disk.storedItems().isEmpty)
    }
}
