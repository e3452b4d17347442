import Testing
import TrailFormat

/// The log folder's names, decoded in one place (the logger, the exporters and `trail report --crash` agree).
@Suite struct LogFileNameTests {
    @Test(
        arguments: [
            ("app.log", "app", nil), ("app.3.log", "app", 3), ("my.app.log", "my.app", nil),
            ("my.app.12.log", "my.app", 12),
            ("app.0.log", "app.0", nil), ("app.-1.log", "app.-1", nil), ("app.+1.log", "app.+1", nil),
            ("app.1234567890123456789.log", "app.1234567890123456789", nil), ("7.log", "7", nil), (".3.log", ".3", nil),
        ] as [(String, String, Int?)])
    func names(name: String, stem: String, sequence: Int?) {
        let parsed = LogFileName.parse(name)
        #expect(parsed?.stem == stem && parsed?.sequence == sequence, "\(name): \(String(describing: parsed))")
    }

    @Test func notLogsAndRoundTrips() {
        for name in [".log", "app.txt", "app.log.1", "app.log.gz", ""] {
            #expect(LogFileName.parse(name) == nil, "\(name)")
        }
        #expect(LogFileName.name(stem: "app") == "app.log" && LogFileName.name(stem: "app", sequence: 4) == "app.4.log")
        for sequence in [1, 9, 10, 4096] {
            #expect(LogFileName.parse(LogFileName.name(stem: "my.app", sequence: sequence))?.sequence == sequence)
        }
        let sorted = ["app.log", "app.10.log", "app.2.log", "api.log", "app.1.log"].sorted {
            LogFileName.order($0) < LogFileName.order($1)
        }
        #expect(sorted == ["api.log", "app.1.log", "app.2.log", "app.10.log", "app.log"])
    }
}
