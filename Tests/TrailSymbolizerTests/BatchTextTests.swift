import Testing
import TrailTestSupport

@testable import TrailSymbolizer

/// `appendText` for a batch of addresses reads units, inlined calls and names on a second thread, and looks
/// addresses up unit by unit: its text must be what looking each address up alone gives, in the batch's order.
@Suite struct BatchTextTests {
    /// Addresses across every unit, out of order and repeated, with lines that are not addresses.
    static func addresses(_ image: ELFImage) -> [UInt64?] {
        var addresses: [UInt64?] = []
        for unit in image.unitTable {
            let step = max(1, (unit.high - unit.low) / 30)
            addresses += stride(from: unit.low, to: unit.high, by: Int(step)).map { Optional($0) }
        }
        // A shuffle that is the same every run, the first addresses again, and addresses outside any unit.
        var state: UInt64 = 7
        for index in addresses.indices.reversed() where index > 0 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            addresses.swapAt(index, Int(state >> 33) % (index + 1))
        }
        return addresses + addresses.prefix(50) + [nil, 0, 1, nil, .max]
    }

    static func text(_ image: ELFImage, _ addresses: [UInt64?], batch: Bool) -> [UInt8] {
        var out: [UInt8] = []
        var written: [UInt8] = []
        if batch {
            image.appendText(addresses, to: &out) { full in
                written += full
                full.removeAll(keepingCapacity: true)
            }
        } else {
            for address in addresses {
                if let address { image.appendText(address, to: &out) } else { out += Array("??\n??:0:0\n\n".utf8) }
            }
        }
        return written + out
    }

    @Test func aBatchGivesWhatEachAddressAloneGives() throws {
        for binary in UnitTableTests.programs + [Paths.trail] {
            let addresses = Self.addresses(try ELFImage(path: binary))
            #expect(addresses.count > 100, "\(binary)")
            let alone = Self.text(try ELFImage(path: binary), addresses, batch: false)
            #expect(Self.text(try ELFImage(path: binary), addresses, batch: true) == alone, "\(binary)")
            // Units libdw indexed: the worker only demangles. Two batches in a row: the second finds units loaded.
            let libdw = try ELFImage(path: binary, unitsFromLibdw: true)
            #expect(Self.text(libdw, addresses, batch: true) == alone, "\(binary) (libdw's units)")
            let twice = try ELFImage(path: binary)
            let half = addresses.count / 2
            let first = Self.text(twice, Array(addresses[..<half]), batch: true)
            #expect(first + Self.text(twice, Array(addresses[half...]), batch: true) == alone, "\(binary) (halves)")
        }
    }
}
