#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Dates as keychainctl prints and reads them, with FoundationEssentials' `Date.ISO8601FormatStyle`
/// giving the text Foundation's `ISO8601DateFormatter` and `DateFormatter` gave (neither is in
/// FoundationEssentials), so that scripts and tests reading the output see the same text.
enum ISO8601Text {
    /// `2026-11-25T18:00:00Z`: the date in UTC, to the second (`ISO8601DateFormatter`'s default,
    /// and its `.withInternetDateTime`).
    static func internetDateTime(_ date: Date) -> String {
        Date.ISO8601FormatStyle().format(wholeSecond(date))
    }

    /// `20261125180000Z`: the date in UTC, to the second, without separators (`security(1)`'s
    /// `<timedate>` form, which keychainctl wrote with the `DateFormatter` format `yyyyMMddHHmmss'Z'`).
    static func compact(_ date: Date) -> String {
        String(internetDateTime(date).unicodeScalars.filter { $0 != "-" && $0 != ":" && $0 != "T" })
    }

    /// The date `text` gives as a date and time with a zone (`2026-11-25T18:00:00Z`, `…+01:00`,
    /// `….250Z`) or a date (`2026-11-25`, UTC midnight), read as `ISO8601DateFormatter` read it
    /// with `.withInternetDateTime` (and `.withFractionalSeconds`), then `.withFullDate`: white
    /// space before the text and anything after what it reads are ignored, a time whose hour,
    /// minute or second is out of range leaves the date alone, and fractions of a second count
    /// to the millisecond. Nil when `text` holds no date.
    static func date(from text: String) -> Date? {
        let trimmed = String(text.unicodeScalars.drop { $0.properties.isWhitespace })
        if timeFieldsInRange(trimmed) {
            let withMilliseconds = truncatingFraction(trimmed)
            for style in [Date.ISO8601FormatStyle(includingFractionalSeconds: true), Date.ISO8601FormatStyle()] {
                if let date = parsed(withMilliseconds, as: style) {
                    return Date(timeIntervalSince1970: (date.timeIntervalSince1970 * 1000).rounded() / 1000)
                }
            }
        }
        return parsed(trimmed, as: Date.ISO8601FormatStyle().year().month().day())
    }

    /// `text` read in `style`; nil when it is not in that form (the caller tries the next form).
    private static func parsed(_ text: String, as style: Date.ISO8601FormatStyle) -> Date? {
        do {
            return try style.parse(text)
        } catch {
            return nil
        }
    }

    /// The date as Foundation's formatters saw it: rounded to the millisecond, then to the second below.
    private static func wholeSecond(_ date: Date) -> Date {
        let milliseconds = (date.timeIntervalSince1970 * 1000 + 0.5).rounded(.down)
        return Date(timeIntervalSince1970: (milliseconds / 1000).rounded(.down))
    }

    /// Whether the `HH:mm:ss` after a `T` (if there is one) has an hour of at most 24 and a
    /// minute and second of at most 59, as `ISO8601DateFormatter` required of a time.
    private static func timeFieldsInRange(_ text: String) -> Bool {
        let scalars = Array(text.unicodeScalars)
        guard let separator = scalars.firstIndex(where: { $0 == "T" || $0 == "t" || $0 == " " }) else { return true }
        let fields = String(String.UnicodeScalarView(scalars[(separator + 1)...].prefix { $0 == ":" || ("0"..."9").contains($0) }))
            .split(separator: ":", omittingEmptySubsequences: false).map { Int($0) }
        let limits = [24, 59, 59]
        for (field, limit) in zip(fields, limits) {
            guard let field, field <= limit else { return false }
        }
        return true
    }

    /// `text` with the fraction of its seconds cut to three digits (milliseconds), as
    /// `ISO8601DateFormatter` read it.
    private static func truncatingFraction(_ text: String) -> String {
        let scalars = Array(text.unicodeScalars)
        guard let point = scalars.firstIndex(of: ".") else { return text }
        var end = point + 1
        while end < scalars.count, ("0"..."9").contains(scalars[end]) { end += 1 }
        guard end - point - 1 > 3 else { return text }
        return String(String.UnicodeScalarView(scalars[..<(point + 4)] + scalars[end...]))
    }
}
