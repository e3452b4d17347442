import Testing
import TrailTestSupport

/// The file address and name of the first symbol `nm` lists that matches.
func symbol(in binary: String, _ matches: (Substring) -> Bool) throws -> (address: UInt64, name: String) {
    let listing = try run("nm", ["--defined-only", binary], check: true).stdout
    let line = try #require(listing.split(separator: "\n").first { matches($0.split(separator: " ").last ?? "") })
    let fields = line.split(separator: " ")
    return (try #require(UInt64(fields[0], radix: 16)), String(fields[fields.count - 1]))
}

func address(of name: String, in binary: String) throws -> UInt64 {
    try symbol(in: binary) { $0 == name }.address
}
