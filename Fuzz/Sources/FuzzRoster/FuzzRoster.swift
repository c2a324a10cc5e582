import CFuzzDriver
import Crypto
import Foundation
@testable import KeychainSync

/// A fixed code, so that join requests get as far as the HMAC check.
let code = CircleCode(circleID: Data(repeating: 0x11, count: 16), secret: SymmetricKey(data: Data(repeating: 0x22, count: 32)))

/// The first byte chooses the decoder: even = a signed member list (decoded before its signature
/// is checked, then checked alone), odd = a join request (checked against the code above). A
/// decoded member list re-encodes to the exact input, names each device once and at most
/// `Roster.maximumMembers`; a random input never verifies.
func fuzzRoster(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    guard let bytes, count > 0 else { return 0 }
    let data = Data(bytes: bytes + 1, count: count - 1)
    if bytes[0] % 2 == 0 {
        guard let roster = try? Roster(decoding: data) else { return 0 }  // rejection is the expected outcome
        guard roster.encoded == data, roster.members.count <= Roster.maximumMembers,
              Set(roster.members.map(\.id)).count == roster.members.count
        else { fatalError("a member list decoded loosely") }
        _ = try? roster.verifiedAlone(circleID: roster.circleID)  // must not crash; a forgery cannot verify
    } else {
        guard let request = try? JoinRequest(verifying: data, code: code) else { return 0 }
        guard request.circleID == code.circleID else { fatalError("a join request for another circle verified") }
    }
    return 0
}

@main
struct FuzzRosterMain {
    static func main() {
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv) { bytes, count in fuzzRoster(bytes, count) })
    }
}
