/// How an attribute's value is interpreted, compared and defaulted (Apple's schema kinds).
package enum AttributeKind: Sendable {
    /// Bytes given as String or Data, type preserved, compared by bytes; default empty.
    case blob
    /// Text; Data is decoded as UTF-8; default empty.
    case string
    /// Integer; a numeric string becomes a number, any other string stays a string; default 0.
    case number
    /// A date; default the reference date.
    case date
}
