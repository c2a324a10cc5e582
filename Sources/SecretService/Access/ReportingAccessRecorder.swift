#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainAudit

/// Records each access decision as one line for the person running the provider (its standard
/// error, through `report`): what `keychainctl secret-service` records until it writes the access
/// log. The line names the operation, the item by its label, service and account, the caller's
/// executable and pid, and the decision; never a secret.
package struct ReportingAccessRecorder: AccessEventRecorder {
    let report: @Sendable (String) -> Void

    /// A recorder writing to `report`.
    package init(report: @escaping @Sendable (String) -> Void) {
        self.report = report
    }

    package func record(_ event: AccessEvent) throws {
        let item = [event.item.label.map { "\u{201C}\(DisplayText.clean($0))\u{201D}" },
                    event.item.service.map { "service \(DisplayText.clean($0))" },
                    event.item.account.map { "account \(DisplayText.clean($0))" }].compactMap { $0 }.joined(separator: ", ")
        let process = event.caller.process
        report("access: \(event.operation.rawValue) \(item.isEmpty ? "an item" : item) by "
               + "\(process.executable.map { DisplayText.clean($0, limit: 512) } ?? "an unidentified application") (pid \(process.pid), uid \(event.callerUID)): \(event.decision.rawValue)")
    }
}
