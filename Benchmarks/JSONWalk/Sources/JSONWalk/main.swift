// `JSONWalk N`: makes a document of N records, parses it ten times and prints a checksum of what it read.
// The work of an ordinary program: parsing, building values, walking them.

/// A document of `count` records, each an object of strings, numbers, a flag and a small array.
func document(records count: Int) -> [UInt8] {
    var text = "["
    for index in 0 ..< count {
        if index > 0 { text += "," }
        text += #"{"id": \#(index), "name": "item \#(index)", "price": \#(index % 97).\#(index % 10)5, "#
        text += #""tags": ["a", "b\n", "c"], "active": \#(index % 3 == 0), "note": null}"#
    }
    return Array((text + "]").utf8)
}

/// What a program does with what it parsed: a sum over every value.
func checksum(_ value: JSON) -> Double {
    switch value {
    case .null: return 1
    case .bool(let flag): return flag ? 2 : 3
    case .number(let number): return number
    case .string(let text): return Double(text.utf8.count)
    case .array(let elements): return elements.reduce(0) { $0 + checksum($1) }
    case .object(let members): return members.reduce(0) { $0 + Double($1.key.utf8.count) + checksum($1.value) }
    }
}

let records = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 20000 : 20000
let bytes = document(records: records)
var total = 0.0
for _ in 0 ..< 10 { total += checksum(try Parser.parse(bytes)) }
print("parsed \(bytes.count) bytes ten times, checksum \(Int(total))")
