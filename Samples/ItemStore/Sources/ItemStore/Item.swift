import Foundation

/// One thing in the inventory.
struct Item: Codable, Equatable {
    var name: String
    let serialNumber: String
    var valueInDollars: Int
    let dateCreated: Date
}

extension Item: CustomStringConvertible {
    var description: String {
        "\(serialNumber)  \(name.padding(toLength: 16, withPad: " ", startingAt: 0)) \(valueInDollars.dollars)  \(dateCreated.day)"
    }
}

extension Int {
    /// `$1,250`.
    var dollars: String {
        let digits = String(abs(self))
        var grouped = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { grouped += "," }
            grouped.append(digit)
        }
        return (self < 0 ? "-$" : "$") + grouped
    }
}

extension Date {
    /// `2026-12-02`, in UTC so that output does not depend on the machine.
    var day: String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day], from: self)
        return String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!)
    }
}
