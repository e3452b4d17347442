import Foundation
import Trail

#if canImport(Glibc)
import Glibc
#endif

/// Each way a Swift program dies. The `// crash site` comments mark the lines the crash matrix test expects
/// symbolized stacks to name.
enum Crashes {
    struct Config {
        var name: String?
    }

    static func nilUnwrap(_ config: Config) -> Int {
        config.name!.count  // crash site: nil
    }

    static func fatal(_ reason: String) -> Never {
        fatalError("CrashLab: \(reason)")  // crash site: fatal
    }

    static func checkedWithdrawal(balance: Int, amount: Int) -> Int {
        precondition(amount <= balance, "overdraft of \(amount - balance)")  // crash site: precondition
        return balance - amount
    }

    static func outOfBounds(_ values: [Int], at index: Int) -> Int {
        values[index]  // crash site: bounds
    }

    static func badPointer(_ address: Int) -> Int {
        UnsafePointer<Int>(bitPattern: address)!.pointee  // crash site: pointer
    }

    static func recurse(_ depth: Int) -> Int {
        var padding = (depth, depth, depth, depth)
        return withUnsafeMutablePointer(to: &padding) {
            recurse($0.pointee.0 + 1) + $0.pointee.1  // crash site: overflow
        }
    }

    static func abortNow() -> Never {
        abort()  // crash site: abort
    }

    static func onThread() -> Never {
        let thread = Thread {
            Trail.nameThread("crashlab-worker")
            print(badPointer(16))
        }
        thread.start()
        // The worker's crash ends the process; should it not, say so rather than hang. One sleep would end early:
        // the Swift backtracer signals every thread to take its snapshot, and the main thread could then exit 3
        // before the worker's crash ends the process.
        let deadline = time(nil) + 30
        while time(nil) < deadline { sleep(1) }
        print("the worker thread did not crash")
        exit(3)
    }
}

enum Ledger {
    struct Overdraft: Error, CustomStringConvertible {
        let amount: Int
        var description: String { "overdraft of \(amount)" }
    }

    static func withdraw(_ amount: Int, from balance: Int) throws -> Int {
        guard amount <= balance else { throw Overdraft(amount: amount - balance) }  // crash site: throw
        return balance - amount
    }
}
