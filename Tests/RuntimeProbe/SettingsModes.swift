import CTrailShim
import Foundation
import RuntimeProbeModes
@_spi(Testing) import Trail

#if canImport(Glibc)
import Glibc
#endif

/// Start-up settings as C and Swift read them, and the runtime's own formatting of dates.
extension ProbeRun {
    /// Each NAME=VALUE through the C start-up's settings and through Swift's, printed as
    /// "side<TAB>NAME<TAB>VALUE<TAB>result<TAB>message" for the sides that read NAME.
    func settings() {
        for argument in arguments.dropFirst(3) {
            guard let equals = argument.firstIndex(of: "=") else { continue }
            let name = String(argument[..<equals])
            let value = String(argument[argument.index(after: equals)...])
            var result = [CChar](repeating: 0, count: 128)
            var message = [CChar](repeating: 0, count: 512)
            if trail_setting_check(name, value, &result, result.count, &message, message.count) != 0 {
                print(["c", name, value, String(cString: result), String(cString: message)].joined(separator: "\t"))
            }
            if let swift = Trail.Configuration.checkSetting(name, value) {
                print(["swift", name, value, swift.result, swift.message].joined(separator: "\t"))
            }
        }
    }

    /// No folder given: where the log goes (HOME and XDG_STATE_HOME are set empty by the test).
    func defaultFolder() throws {
        var defaults = Trail.Configuration(appName: "probe")
        defaults.destination = .file
        print(try Trail.bootstrap(defaults) ?? "none")
    }

    /// Each line of stdin, seconds since 1970, as the crash handler and the logger format it.
    func civilDates() {
        while let line = readLine() {
            guard let seconds = Int64(line) else { continue }
            var text = [CChar](repeating: 0, count: 20)
            trail_format_civil(seconds, &text)
            print(String(cString: text))
        }
    }
}
