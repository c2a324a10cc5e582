#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainEngine
import KeychainVocabulary

/// The process's keychains: one registry, read once from the environment (`KEYCHAINKIT_*`) and
/// checkpointed at exit, shared by every SecItem-shaped edge of the process (Apple's C API in
/// KeychainServicesPortable, and ``KeychainClient``'s Swift calls), so that a tool that calls both
/// sees one default keychain, one set of access groups and one choice of keychain service.
/// Nothing below the edges reads it; the tools, the Secret Service provider and sync are handed
/// it (or a registry of their own) by their entry points.
package enum ProcessKeychains {
    /// The process's registry.
    package static let registry = KeychainRegistry(checkpointsAtExit: true, readConfiguration: KeychainConfiguration.fromProcessEnvironment)
}

/// One SecItem-shaped edge over the process's registry: how it returns access-control policies
/// (``KeychainClient``: as `AccessControlPolicy` values; Apple's C API: as `SecAccessControl`
/// objects), with the lifecycle (keychain files, engines) that returns them so.
package struct ItemEdge: Sendable {
    /// The keychain lifecycle over ``ProcessKeychains/registry`` with this edge's result objects.
    package let lifecycle: KeychainLifecycle
    /// Builds the value returned under `kSecAttrAccessControl`.
    package let accessControlObject: @Sendable (AccessControlPolicy) -> Any

    /// An edge whose results carry access control as `accessControlObject` makes it.
    package init(accessControlObject: @escaping @Sendable (AccessControlPolicy) -> Any) {
        self.accessControlObject = accessControlObject
        self.lifecycle = KeychainLifecycle(registry: ProcessKeychains.registry, accessControlObject: accessControlObject)
    }

    /// The edge of ``KeychainClient``: access control as `AccessControlPolicy` values.
    package static let swift = ItemEdge(accessControlObject: { $0 })
}
