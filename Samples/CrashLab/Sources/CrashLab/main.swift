import Foundation
import Trail

#if canImport(Glibc)
import Glibc
#endif

// CrashLab: crashes on demand, one way per command, into a log that `trail symbolize` and `trail report`
// read. On the next launch it notices the previous crash: the "we're sorry" path.
//
//     CrashLab [--log-dir DIR] <nil|fatal|precondition|bounds|pointer|overflow|abort|throw|thread|report|fatal-report|ok>

var arguments = Array(CommandLine.arguments.dropFirst())
var logDirectory = FileManager.default.currentDirectoryPath + "/crashlab-logs"
if arguments.first == "--log-dir", arguments.count >= 2 {
    logDirectory = arguments[1]
    arguments.removeFirst(2)
}

var configuration = Trail.Configuration(appName: "CrashLab", directory: logDirectory)
configuration.appVersion = "1.0"
configuration.destination = .file
try Trail.bootstrap(configuration)
let log = Logger(label: "CrashLab")

if let crash = Trail.previousCrash {
    print("We're sorry: CrashLab crashed last time (\(crash.summary)).")
    print("Its crash block is in \(crash.logFile); `trail report --crash \(logDirectory)` writes a full report.")
    Trail.acknowledgePreviousCrash()
}

let command = arguments.first ?? "ok"
log.info("running \(command)")

switch command {
case "nil": print(Crashes.nilUnwrap(.init(name: nil)))
case "fatal": Crashes.fatal("asked to")
case "precondition": print(Crashes.checkedWithdrawal(balance: 10, amount: 25))
case "bounds": print(Crashes.outOfBounds([1, 2, 3], at: 5))
case "pointer": print(Crashes.badPointer(8))
case "overflow": print(Crashes.recurse(0))
case "abort": Crashes.abortNow()
case "throw": print(try Ledger.withdraw(50, from: 20))
case "thread": Crashes.onThread()
case "report":
    do {
        _ = try Ledger.withdraw(50, from: 20)
    } catch {
        Trail.report(error, context: "paying the rent")
    }
    print("reported, still running")
case "fatal-report":
    do {
        _ = try Ledger.withdraw(50, from: 20)
    } catch {
        Trail.report(error, fatal: true, context: "closing the books")
    }
case "ok": print("no crash")
default:
    print("unknown command \(command)")
    exit(2)
}
