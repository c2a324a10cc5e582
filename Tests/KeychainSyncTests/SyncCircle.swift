import KeychainPrimitives
import EtcdClusterSupport
import Foundation
import KeychainStore
import KeychainTestSupport
import KeychainVocabulary
@testable import KeychainSync

/// Devices in one circle at `location`: the first created it and sponsored each of the others in
/// turn (so each earlier member has followed the later membership changes). They share one
/// clock, the world's time: a test moves it between edits whose order matters.
struct DeviceCircle {
    let devices: [SyncDevice]
    let location: String
    let code: CircleCode
    let clock: ManualClock

    /// `names` in order (the first creates the circle), each with its keychain password if
    /// `passwords` names one; `joinLocation` is where the device at an index says the circle is
    /// (`location` unless given), `opener` how it reaches it (etcd unless given). Devices named in
    /// `ownClocks` get a clock of their own (`SyncDevice.clock`), to be set ahead of the others'.
    init(_ names: [String], location: String, passwords: [String: String] = [:], ownClocks: Set<String> = [],
         joinLocation: ((Int) -> String)? = nil, opener: ((URL) -> SyncTransportOpener)? = nil) throws {
        let clock = ManualClock()
        let devices = try names.map {
            try SyncDevice($0, password: passwords[$0], clock: ownClocks.contains($0) ? ManualClock() : clock, opener: opener)
        }
        code = try devices[0].synchronizer.create(location: location)
        for (index, device) in devices.enumerated().dropFirst() {
            try device.join(code, sponsor: devices[0], location: joinLocation?(index) ?? location)
        }
        self.devices = devices
        self.location = location
        self.clock = clock
    }

    /// `order` (every device unless given) syncs, in that order, `rounds` times.
    func syncAll(_ order: [SyncDevice]? = nil, rounds: Int = 2) throws {
        for _ in 0..<rounds { for device in order ?? devices { try device.sync() } }
    }

    /// Moves the shared clock 5 ms forward: the next edit is dated after the ones before it (an
    /// edit within one clock reading moves an item's date 1 ms on; tests make a few at most).
    func tick() {
        clock.advance(by: .milliseconds(5))
    }
}

/// A real 3-member etcd cluster and devices in one circle on it (by default A, B and C: A created
/// it and sponsored B, then C, which names the endpoints in another order).
struct SyncCircle {
    let cluster: EtcdCluster
    let circle: DeviceCircle

    var a: SyncDevice { circle.devices[0] }
    var b: SyncDevice { circle.devices[1] }
    var c: SyncDevice { circle.devices[2] }
    var code: CircleCode { circle.code }
    var location: String { circle.location }

    init(_ names: [String] = ["a", "b", "c"], passwords: [String: String] = [:]) throws {
        let cluster = try EtcdCluster()
        let endpoints = cluster.endpoints
        circle = try DeviceCircle(names, location: endpoints.joined(separator: ","), passwords: passwords,
                                  joinLocation: { $0 == 2 ? endpoints.reversed().joined(separator: ",") : endpoints.joined(separator: ",") })
        self.cluster = cluster
    }

    /// The circle's records, read and written directly as an attacker with etcd access would.
    func transport() throws -> EtcdTransport {
        EtcdTransport(client: try EtcdClient(endpoints: cluster.endpoints), circleID: HexEncoding.string(code.circleID), location: location)
    }

    /// `devices` sync, in that order, `rounds` times.
    func syncAll(_ devices: SyncDevice..., rounds: Int = 2) throws {
        try circle.syncAll(devices, rounds: rounds)
    }

    /// ``DeviceCircle/tick()``: the next edit is dated after the ones before it.
    func tick() { circle.tick() }
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
