import KeychainPrimitives
import EtcdClusterSupport
import Foundation
import KeychainStore
@testable import KeychainSync

/// A real 3-member etcd cluster and three devices in one circle: A created it and sponsored B,
/// then C (so B has followed one membership change already).
struct SyncCircle {
    let cluster: EtcdCluster
    let a: SyncDevice
    let b: SyncDevice
    let c: SyncDevice
    let code: CircleCode

    var location: String { cluster.endpoints.joined(separator: ",") }

    init() throws {
        cluster = try EtcdCluster()
        a = try SyncDevice("a")
        b = try SyncDevice("b")
        c = try SyncDevice("c")
        let location = cluster.endpoints.joined(separator: ",")
        code = try a.synchronizer.create(location: location)
        try b.join(try CircleCode(text: code.text), sponsor: a, location: location)
        try c.join(code, sponsor: a, location: cluster.endpoints.reversed().joined(separator: ","))
    }

    /// The circle's records, read and written directly as an attacker with etcd access would.
    func transport() throws -> EtcdTransport {
        EtcdTransport(client: try EtcdClient(endpoints: cluster.endpoints), circleID: HexEncoding.string(code.circleID), location: location)
    }

    func syncAll(_ devices: SyncDevice..., rounds: Int = 2) throws {
        for _ in 0..<rounds { for device in devices { try device.sync() } }
    }
}

extension SyncTransport {
    /// Writes `bytes` at `name` unconditionally.
    func put(_ name: String, _ bytes: Data) throws {
        try publish([SyncTransportChange(name: name, operation: .write(bytes))])
    }

    /// The records under `items/`.
    func items() throws -> [SyncTransportRecord] { try list(prefix: CircleLayout.itemsPrefix) }
}

extension CircleState {
    /// The member list, keys and identity, for tests that act as this device would.
    func parts() throws -> (roster: Roster, bundle: KeyBundle, identity: DeviceIdentity) {
        let (roster, bundle) = try membership()
        return (roster, bundle, try identity)
    }
}

/// A synchronizable generic password's attributes, as SyncDevice.item makes them.
func itemAttributes(_ account: String, group: String = "app") -> [String: AttributeValue] {
    ["acct": .string(account), "svce": .string("svc"), "agrp": .string(group), "sync": .number(1)]
}
