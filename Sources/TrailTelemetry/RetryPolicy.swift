import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// When a request that failed is sent again: on 429, 502, 503, 504 and on connection failures, after an
/// exponential backoff, or after the receiver's `Retry-After` (seconds or an HTTP date) when it gives one.
public struct RetryPolicy: Sendable {
    /// Retries after the first attempt.
    public var retries = 4
    public var initialBackoff = 0.5
    public var maxBackoff = 16.0
    /// A longer `Retry-After` is cut to this: an export should not hang for hours.
    public var maxRetryAfter = 60.0

    public init(retries: Int = 4) { self.retries = max(0, retries) }

    public static func isRetryable(status: Int) -> Bool { [429, 502, 503, 504].contains(status) }

    /// Seconds to wait before retry number `retry` (1 for the first retry).
    public func delay(retry: Int, retryAfter: String?, now: time_t = time(nil)) -> Double {
        if let retryAfter, let seconds = Self.parseRetryAfter(retryAfter, now: now) {
            return min(seconds, maxRetryAfter)
        }
        return min(initialBackoff * Double(1 << min(retry - 1, 30)), maxBackoff)
    }

    /// `120`, or `Sun, 06 Nov 1994 08:49:37 GMT` (RFC 9110's IMF-fixdate), as seconds from `now` (at least 0).
    public static func parseRetryAfter(_ value: String, now: time_t) -> Double? {
        let text = value.trimmingSpaces
        if let seconds = Int(text) { return seconds >= 0 ? Double(seconds) : nil }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        guard let date = formatter.date(from: String(text)) else { return nil }
        return max(0, date.timeIntervalSince1970 - Double(now))
    }
}
