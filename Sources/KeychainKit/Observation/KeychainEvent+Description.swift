extension KeychainEvent: CustomStringConvertible {
    /// One log line, for example
    /// `SecItemCopyMatching genp → errSecItemNotFound (-25300) after 1.2 ms; query: kSecAttrAccount,
    /// kSecAttrService, kSecClass, kSecMatchLimit, kSecReturnData; service: <private>, account: <private>`.
    public var description: String {
        var line = operation.functionName
        if let itemClass {
            line += " \(itemClass.classValue)"
        }
        line += " → \(statusText)"
        if let returnedItemCount {
            line += ", \(returnedItemCount) \(returnedItemCount == 1 ? "item" : "items")"
        }
        line += " after \(Self.format(duration))"
        line += "; query: \(queryKeys.joined(separator: ", "))"
        if operation == .update {
            line += "; attributes to update: \(attributesToUpdateKeys.joined(separator: ", "))"
        }
        if !identifierPairs.isEmpty {
            line += "; " + identifierList
        }
        return line
    }

    /// The status as `errSecItemNotFound (-25300)`, or `OSStatus -1234` for an unnamed code.
    private var statusText: String {
        statusName.map { "\($0) (\(status))" } ?? "OSStatus \(status)"
    }

    /// `service: <private>, account: "alice"`, in ``IdentifyingAttribute/allCases`` order.
    private var identifierList: String {
        identifierPairs.sorted { $0.0.ordinal < $1.0.ordinal }
            .map { attribute, value in "\(attribute.rawValue): \(value)" }
            .joined(separator: ", ")
    }

    /// A duration for people, truncated: microseconds below a millisecond, milliseconds with one
    /// decimal below a second, else seconds with two. Any `Duration` (an event you build yourself
    /// may hold a negative or huge one) formats without overflow.
    static func format(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0, attoseconds >= 0 else {
            return String(describing: duration)
        }
        guard seconds == 0 else {
            let hundredths = attoseconds / 10_000_000_000_000_000
            return "\(seconds).\(hundredths < 10 ? "0" : "")\(hundredths) s"
        }
        let microseconds = attoseconds / 1_000_000_000_000
        guard microseconds >= 1_000 else {
            return "\(microseconds) µs"
        }
        let tenthsOfMilliseconds = microseconds / 100
        return "\(tenthsOfMilliseconds / 10).\(tenthsOfMilliseconds % 10) ms"
    }
}

extension KeychainEvent: CustomDebugStringConvertible {
    /// Every field by name, for example `KeychainEvent(operation: copyMatching, itemClass:
    /// kSecClassGenericPassword, status: errSecSuccess (0), duration: 310 µs, …)`. Holds nothing
    /// ``description`` does not.
    public var debugDescription: String {
        var fields = [
            "operation: \(operation.rawValue)",
            "itemClass: \(itemClass?.constantName ?? "nil")",
            "status: \(statusText)",
            "duration: \(Self.format(duration))",
            "queryKeys: [\(queryKeys.joined(separator: ", "))]",
        ]
        if operation == .update {
            fields.append("attributesToUpdateKeys: [\(attributesToUpdateKeys.joined(separator: ", "))]")
        }
        if let returnedItemCount {
            fields.append("returnedItemCount: \(returnedItemCount)")
        }
        fields.append("identifiers: [\(identifierList)]")
        return "KeychainEvent(\(fields.joined(separator: ", ")))"
    }
}

extension KeychainEvent: CustomReflectable {
    /// The fields as ``debugDescription`` shows them, identifiers already rendered (`<private>`
    /// or the value the observer chose to see), so that `dump` and debuggers show nothing more.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "operation": operation.functionName,
                "itemClass": itemClass?.constantName ?? "nil",
                "status": statusText,
                "duration": Self.format(duration),
                "queryKeys": queryKeys,
                "attributesToUpdateKeys": attributesToUpdateKeys,
                "returnedItemCount": returnedItemCount.map(String.init) ?? "nil",
                "identifiers": identifierList,
            ],
            displayStyle: .struct
        )
    }
}
