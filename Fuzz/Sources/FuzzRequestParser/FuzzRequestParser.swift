import CFuzzDriver
import Foundation
@testable import KeychainEngine
@testable import KeychainStore

/// Turns fuzz bytes into SecItem calls on an in-memory keychain. Layout: one byte picks the call
/// (add, copy matching, update, delete), then entries until the input ends; for an update, a 0xFF
/// byte separates the query from the attributes to update. Each entry is a key byte (a known
/// Apple key, or a raw string key) and a typed value (string, data, integer, bool, date, null,
/// array, nested dictionary, or one of Apple's constant strings).
struct Input {
    private let bytes: [UInt8]
    private var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { offset >= bytes.count }

    mutating func byte() -> UInt8 {
        guard offset < bytes.count else { return 0 }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func peek() -> UInt8? { offset < bytes.count ? bytes[offset] : nil }

    mutating func take(_ count: Int) -> [UInt8] {
        let end = min(bytes.count, offset + count)
        defer { offset = end }
        return Array(bytes[offset..<end])
    }
}

let knownKeys = [
    "class", "acct", "svce", "agrp", "sync", "pdmn", "accc", "labl", "desc", "icmt", "gena", "crtr", "type", "invi", "nega",
    "vwht", "tkid", "cdat", "mdat", "srvr", "sdmn", "ptcl", "port", "path", "atyp", "nleg", "musr", "sha1", "tomb", "UUID", "clip",
    "v_Data", "v_PersistentRef", "v_Ref", "r_Data", "r_Attributes", "r_Ref", "r_PersistentRef", "m_Limit",
    "m_HostOrSubdomainOfHost", "m_Issuers", "m_CaseInsensitive", "m_SearchList", "u_AuthUI", "u_NoAuthUI", "u_AuthCtx",
    "u_OpPrompt", "u_ItemList", "u_Tomb", "u_CallerName", "f_callback", "zzzz", "x", "",
]
let constants = [
    "genp", "inet", "cert", "keys", "idnt", "m_LimitOne", "m_LimitAll", "syna", "ak", "ck", "dk", "aku", "cku", "dku", "akpu",
    "u_AuthUIA", "u_AuthUIF", "u_AuthUIS", "fuzz", "other", "https", "example.com", "", "1", "-1", "0",
]

func value(_ input: inout Input, depth: Int) -> Any {
    switch input.byte() % 12 {
    case 0: return String(decoding: input.take(Int(input.byte() % 32)), as: UTF8.self)
    case 1: return Data(input.take(Int(input.byte())))
    case 2: return Int(Int8(bitPattern: input.byte()))
    case 3: return Int64(bitPattern: UInt64(input.take(8).reduce(0) { $0 << 8 | UInt64($1) }))
    case 4: return input.byte() % 2 == 0
    case 5: return Date(timeIntervalSinceReferenceDate: Double(Int8(bitPattern: input.byte())) * 1e6)
    case 6: return NSNull()
    case 7: return (0..<Int(input.byte() % 3)).map { _ in constants[Int(input.byte()) % constants.count] }
    case 8: return depth < 2 ? dictionary(&input, depth: depth + 1, stopAtSeparator: false, limit: 4) : "deep"
    case 9: return NSNumber(value: Double(Int8(bitPattern: input.byte())) / 3)
    case 10: return Data(constants[Int(input.byte()) % constants.count].utf8)
    default: return constants[Int(input.byte()) % constants.count]
    }
}

func dictionary(_ input: inout Input, depth: Int, stopAtSeparator: Bool, limit: Int = 40) -> [String: Any] {
    var result: [String: Any] = [:]
    while !input.isAtEnd && result.count < limit {
        if stopAtSeparator, input.peek() == 0xFF {
            _ = input.byte()
            break
        }
        let selector = input.byte()
        let key = selector < 0xC0 ? knownKeys[Int(selector) % knownKeys.count]
            : String(decoding: input.take(Int(selector & 0x07)), as: UTF8.self)
        result[key] = value(&input, depth: depth)
    }
    return result
}

/// Every status the engine may return; anything else is a finding.
let appleStatuses: Set<Int32> = [0, -4, -50, -108, -25291, -25292, -25293, -25299, -25300, -25303, -25306, -25308, -26275,
                                 -34018, -34, -36, -128, -25320]

nonisolated(unsafe) var engine: SecItemEngine?
nonisolated(unsafe) var calls = 0

func fuzzRequestParser(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    guard let bytes else { return 0 }
    // A fresh keychain every 500 calls keeps each run small and independent enough.
    calls += 1
    if engine == nil || calls % 500 == 0 {
        guard let fresh = try? SecItemEngine.ephemeral(accessGroups: ["fuzz", "other"]) else { fatalError("no in-memory keychain") }
        engine = fresh
    }
    guard let engine else { return 0 }
    var input = Input(Array(UnsafeBufferPointer(start: bytes, count: count)))
    let operation = input.byte() % 4
    let query = dictionary(&input, depth: 0, stopAtSeparator: operation == 2)
    let status: Int32
    switch operation {
    case 0:
        let result = engine.add(query)
        status = result.status
    case 1:
        let result = engine.copyMatching(query)
        status = result.status
        if status == 0, query["r_Data"] as? Bool == true, query["r_Attributes"] == nil, query["r_PersistentRef"] == nil,
           query["m_Limit"] == nil, query["r_Ref"] == nil, !(result.value is Data) {
            fatalError("kSecReturnData alone must give Data")
        }
    case 2:
        status = engine.update(query, dictionary(&input, depth: 0, stopAtSeparator: false))
    default:
        status = engine.delete(query)
    }
    if !appleStatuses.contains(status) { fatalError("unexpected status \(status)") }
    return 0
}

@main
struct FuzzRequestParserMain {
    static func main() {
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv) { bytes, count in fuzzRequestParser(bytes, count) })
    }
}
