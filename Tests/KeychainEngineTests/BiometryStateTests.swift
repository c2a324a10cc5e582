import Foundation
import Testing
@testable import KeychainEngine

@Suite("Biometry state")
struct BiometryStateTests {
    @Test("the domain state changes with the enrolled fingers, not with their order")
    func domainState() {
        let one = BiometryState(readerName: "reader", enrolledFingers: ["right-index-finger", "left-thumb"], userID: 1000)
        let same = BiometryState(readerName: "reader", enrolledFingers: ["left-thumb", "right-index-finger"], userID: 1000)
        let more = BiometryState(readerName: "reader", enrolledFingers: ["left-thumb", "right-index-finger", "left-index-finger"], userID: 1000)
        let otherUser = BiometryState(readerName: "reader", enrolledFingers: ["left-thumb", "right-index-finger"], userID: 1001)
        #expect(one.domainState == same.domainState && one.domainState.count == 32)
        #expect(one.domainState != more.domainState && one.domainState != otherUser.domainState)
        #expect(!BiometryState(readerName: "reader", enrolledFingers: [], userID: 1).isEnrolled)
    }
}
