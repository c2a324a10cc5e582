#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A value a SecItem dictionary or result may carry across the service's socket: a closed set of
/// plain types. Objects (`SecAccessControl`, `SecKey`, `LAContext`, `SecKeychain`) have no wire
/// form, so a request that holds one never leaves the client.
package indirect enum WireValue: Equatable, Sendable {
    case string(String)
    case data(Data)
    case bool(Bool)
    case integer(Int64)
    case double(Double)
    /// Seconds since 2001-01-01 00:00 UTC (`Date.timeIntervalSinceReferenceDate`).
    case date(Double)
    case array([WireValue])
    /// Keys in the order sent; the decoder refuses a repeated key.
    case dictionary([WireEntry])
}

/// One key and value of a ``WireValue/dictionary(_:)``.
package struct WireEntry: Equatable, Sendable {
    /// The key, as Apple's string value of a `kSec…` constant.
    package var key: String
    /// The value.
    package var value: WireValue

    /// An entry.
    package init(key: String, value: WireValue) {
        self.key = key
        self.value = value
    }
}
