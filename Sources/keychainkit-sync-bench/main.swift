// Times the sync transports (not a product; bench/sync-transports.sh runs it, docs/PERFORMANCE.md
// reports it): publish and list of N records, per-record publishes, and a git remote's growth.
//
//   keychainkit-sync-bench git <remote-url> <bare-repository-path-or-"-"> [records] [edits]
//   keychainkit-sync-bench folder <folder> [records] [edits]
//   keychainkit-sync-bench etcd <endpoint,endpoint,…> [records] [edits]
//
// Records are `record-bytes` random bytes each (ciphertext does not compress), named like the
// protocol names items (`items/<32 hex>`). Two devices: A publishes, B (a fresh clone or a second
// transport on the folder) refreshes and lists.
import Foundation
import KeychainPrimitives
import KeychainSync

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    FileHandle.standardError.write(Data("usage: keychainkit-sync-bench git URL BARE|- [records] [edits] | folder PATH [records] [edits] | etcd ENDPOINTS [records] [edits]\n".utf8))
    exit(2)
}
let kind = arguments[1]
let numbers = arguments.dropFirst(kind == "git" ? 4 : 3).compactMap { Int($0) }
let recordCount = numbers.first ?? 1000
let editCount = numbers.dropFirst().first ?? 1000
let recordBytes = 1024
let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("kk-sync-bench-\(UUID().uuidString)").path
try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: scratch) }  // scratch records of random bytes, no secret

func randomBytes(_ count: Int) -> Data {
    var generator = SystemRandomNumberGenerator()
    return Data((0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) })
}

func name(_ index: Int) -> String {
    "items/" + String(format: "%032x", index &* 2_654_435_761)
}

func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = ContinuousClock.now
    try body()
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

/// Size on disk of a directory (allocated blocks), in bytes.
func diskUsage(_ path: String) -> Int {
    guard let enumerator = FileManager.default.enumerator(atPath: path) else { return 0 }
    var total = 0
    for case let relative as String in enumerator {
        var status = stat()
        if lstat(path + "/" + relative, &status) == 0, status.st_mode & S_IFMT == S_IFREG { total += Int(status.st_blocks) * 512 }
    }
    return total
}

func gitGC(_ repository: String) {
    do {
        let outcome = try Subprocess.run(executable: "/usr/bin/git", arguments: ["git", "--git-dir=\(repository)", "gc", "--quiet", "--prune=now"],
                                         environment: nil, deadline: .now + .seconds(600))
        if !outcome.succeeded { FileHandle.standardError.write(Data("git gc: exit status \(outcome.status): \(outcome.errorText)\n".utf8)) }
    } catch {
        FileHandle.standardError.write(Data("git gc: \(error)\n".utf8))
    }
}

func report(_ label: String, _ value: String) {
    print("\(kind)\t\(label)\t\(value)")
}

let makeDevice: (String) throws -> any SyncTransport
var bare: String? = nil
switch kind {
case "git":
    let remote = arguments[2]
    bare = arguments[3] == "-" ? nil : arguments[3]
    makeDevice = { device in try GitTransport(remote: remote, repositoryPath: scratch + "/\(device).git", networkTimeout: .seconds(600)) }
case "etcd":
    let endpoints = arguments[2]
    let circle = UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
    makeDevice = { _ in try EtcdTransport.open(location: endpoints, circleID: circle) }
case "folder":
    let folder = arguments[2]
    makeDevice = { _ in try FolderTransport(folder: folder, create: true) }
default:
    FileHandle.standardError.write(Data("unknown transport \(kind)\n".utf8))
    exit(2)
}

let a = try makeDevice("a")
try a.refresh()
let records = (0..<recordCount).map { SyncTransportChange(name: name($0), operation: .write(randomBytes(recordBytes))) }
let publishAll = try seconds { try a.publish(records) }
report("publish \(recordCount) records, one call", String(format: "%.3f s", publishAll))

let b = try makeDevice("b")
var listed = 0
let firstList = try seconds {
    try b.refresh()
    listed = try b.list(prefix: "items/").count
}
guard listed == recordCount else { fatalError("listed \(listed) of \(recordCount)") }
report("refresh + list \(recordCount) records, new device", String(format: "%.3f s", firstList))
let warmList = try seconds { listed = try b.list(prefix: "items/").count }
report("list \(recordCount) records again (nothing new)", String(format: "%.3f s", warmList))
let refreshList = try seconds {
    try b.refresh()
    listed = try b.list(prefix: "items/").count
}
report("refresh + list again (nothing new)", String(format: "%.3f s", refreshList))

// One record per publish, as `sync run` after a single edit does.
let before = bare.map(diskUsage) ?? 0
if let bare { gitGC(bare) }
let beforePacked = bare.map(diskUsage) ?? 0
let editsTime = try seconds {
    for edit in 0..<editCount {
        try a.publish([SyncTransportChange(name: name(edit % recordCount), operation: .write(randomBytes(recordBytes)))])
    }
}
report("publish one edited record, \(editCount) times", String(format: "%.1f ms each", editsTime * 1000 / Double(editCount)))
let converge = try seconds {
    try b.refresh()
    listed = try b.list(prefix: "items/").count
}
report("refresh + list after the edits, other device", String(format: "%.3f s", converge))
if let bare {
    let after = diskUsage(bare)
    gitGC(bare)
    let afterPacked = diskUsage(bare)
    report("remote size before edits (loose / after gc)", "\(before / 1024) KiB / \(beforePacked / 1024) KiB")
    report("remote growth per \(editCount) edits, as pushed", "\((after - beforePacked) / 1024) KiB")
    report("remote growth per \(editCount) edits, after git gc", "\((afterPacked - beforePacked) / 1024) KiB")
}
