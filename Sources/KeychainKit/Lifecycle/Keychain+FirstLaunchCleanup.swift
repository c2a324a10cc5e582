import Foundation

/// What ``Keychain/removeStaleItemsOnFirstLaunch(defaults:markerKey:existingInstallKeys:)`` did.
public struct FirstLaunchCleanup: Sendable, Hashable {
    /// Whether this launch was the first one of this installation (the marker was absent and no
    /// existing-install key was present).
    public let isFirstLaunch: Bool

    /// The keys of the stale items that were removed, sorted; empty when it was not a first
    /// launch or nothing was left from a previous installation.
    public let removedKeys: [String]

    /// Creates an outcome, for example to compare with in tests.
    ///
    /// - Parameters:
    ///   - isFirstLaunch: Whether it was the first launch.
    ///   - removedKeys: The keys of the removed items.
    public init(isFirstLaunch: Bool, removedKeys: [String]) {
        self.isFirstLaunch = isFirstLaunch
        self.removedKeys = removedKeys
    }
}

extension Keychain {
    /// On the first launch after an installation, removes this service's items left behind by a
    /// previous installation.
    ///
    /// On iOS, deleting an app deletes its `UserDefaults` but not its keychain items, so a
    /// reinstalled app finds the previous user's tokens and passwords. This method detects the
    /// first launch with a marker stored in `defaults` (outside the keychain, so it disappears
    /// with the app):
    ///
    /// 1. If `defaults` holds the marker, this is not a first launch: nothing happens.
    /// 2. Else, if `defaults` holds any of `existingInstallKeys`, the app was already installed
    ///    before this method was adopted: the marker is set and nothing is removed.
    /// 3. Else it is a first launch: every item of this service is removed (``removeAll()``:
    ///    this keychain's service and access group, generic passwords only), then the marker is
    ///    set and `defaults` is synchronized so that a crash right after launch cannot make the
    ///    next launch look like a first one and delete the new session's items.
    ///
    /// If removing fails, the marker is not set and the error is thrown; the next call tries
    /// again. Call it early at launch, before anything reads or writes the keychain.
    ///
    /// - Important: When you add this call to an app that already has users, their first launch
    ///   of the new version looks exactly like a fresh install. Pass the `UserDefaults` keys your
    ///   previous versions always wrote as `existingInstallKeys`, or set the marker in an earlier
    ///   release.
    ///
    /// - Parameters:
    ///   - defaults: Where the marker lives; use defaults that are removed with the app.
    ///   - markerKey: The marker's key; by default `KeychainKit.installed.` followed by the
    ///     service.
    ///   - existingInstallKeys: `UserDefaults` keys whose presence proves an earlier installation
    ///     of this same copy of the app.
    /// - Returns: Whether it was a first launch, and which keys were removed.
    /// - Throws: ``KeychainError``.
    @discardableResult
    public func removeStaleItemsOnFirstLaunch(
        defaults: UserDefaults = .standard,
        markerKey: String? = nil,
        existingInstallKeys: [String] = []
    ) throws(KeychainError) -> FirstLaunchCleanup {
        let marker = markerKey ?? Self.firstLaunchMarkerKey(service: service)
        if defaults.object(forKey: marker) != nil {
            return FirstLaunchCleanup(isFirstLaunch: false, removedKeys: [])
        }
        if existingInstallKeys.contains(where: { defaults.object(forKey: $0) != nil }) {
            Self.setMarker(marker, in: defaults)
            return FirstLaunchCleanup(isFirstLaunch: false, removedKeys: [])
        }
        let stale = try allKeys()
        try removeAll()
        Self.setMarker(marker, in: defaults)
        return FirstLaunchCleanup(isFirstLaunch: true, removedKeys: stale)
    }

    /// The default marker key for a service: `KeychainKit.installed.` followed by the service.
    ///
    /// - Parameter service: The keychain's service.
    /// - Returns: The `UserDefaults` key of the first-launch marker.
    public static func firstLaunchMarkerKey(service: String) -> String {
        "KeychainKit.installed.\(service)"
    }

    private static func setMarker(_ marker: String, in defaults: UserDefaults) {
        defaults.set(true, forKey: marker)
        // Persist now: a marker lost in a crash would make the next launch delete new items.
        // The Bool only says whether anything was written; there is no error to report.
        _ = defaults.synchronize()
    }
}
