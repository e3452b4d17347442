/// Where each code's entry of an abbreviation table is, as far as the table has been decoded.
final class AbbreviationTable {
    let offset: UInt64
    /// By code: the offset of the entry's tag, or -1. Codes are small and nearly dense.
    var positions: [Int] = []
    /// Codes too large for `positions`, which no compiler seen here writes.
    var large: [(code: UInt64, position: Int)] = []
    /// Where decoding goes on; nil at the table's end.
    var next: Int?

    init(offset: UInt64) {
        self.offset = offset
        next = Int(clamping: offset)
    }

    func position(of code: UInt64) -> Int? {
        if code < positions.count, positions[Int(code)] >= 0 { return positions[Int(code)] }
        return code >= 1 << 16 ? large.first { $0.code == code }?.position : nil
    }

    func record(_ code: UInt64, at position: Int) {
        guard code < 1 << 16 else {
            if !large.contains(where: { $0.code == code }) { large.append((code, position)) }
            return
        }
        if Int(code) >= positions.count {
            positions.append(
                contentsOf: repeatElement(
                    -1, count: Swift.max(Int(code) + 1, 2 * positions.count, 64) - positions.count))
        }
        if positions[Int(code)] < 0 { positions[Int(code)] = position }
    }
}
