// Compiled with `-strict-memory-safety -warnings-as-errors` (StrictSafetyTests): what the rewriter inserts must
// mark with `unsafe` every use of an unsafe type it adds, and nothing else, in builds with values and without.
@unsafe struct Cursor {
    var base: UnsafeRawPointer?
    var next: UnsafeRawPointer? { unsafe base }
}

@unsafe typealias Bytes = UnsafeRawBufferPointer

@unsafe func marked(_ count: Int) -> Int { count }
struct Plain { var count = 2 }  // declared after an `@unsafe` function: safe

func first(_ pointer: UnsafePointer<Int>, plus: Int) -> Int { unsafe pointer.pointee + plus }
func same(_ pointer: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? { unsafe pointer }
func none() -> OpaquePointer? { nil }
func noneThrowing(_ fail: Bool) throws -> OpaquePointer? {
    if fail { throw Failure.failed }
    return nil
}
func chosen(_ flag: Bool, _ pointer: UnsafeRawPointer?) -> UnsafeRawPointer? {
    if flag { return nil }
    return unsafe pointer
}
func count(_ bytes: Bytes) -> Int { bytes.count }
func count(of cursor: Cursor?) -> Int { unsafe cursor == nil ? 0 : 1 }
func plain(_ value: Plain) -> Int { value.count }
func empty() -> [UnsafeRawPointer] { unsafe [] }
func total(_ pointers: some Sequence<UnsafeRawPointer>) -> Int { pointers.underestimatedCount }  // not unsafe
func later() async -> OpaquePointer? { nil }

enum Failure: Error { case failed }

@main struct Main {
    static func main() async {
        var number = 40
        let sum = unsafe withUnsafePointer(to: &number) { unsafe first($0, plus: 2) }
        let bytes: [UInt8] = [1, 2, 3]
        let counted = unsafe bytes.withUnsafeBytes { unsafe count($0) }
        print(sum, unsafe same(nil) == nil, unsafe none() == nil, unsafe (try? noneThrowing(false)) == nil)
        print(unsafe chosen(false, nil) == nil, counted, count(of: nil), plain(Plain()))
        print(unsafe marked(5), unsafe empty().count, unsafe total(empty()), unsafe await later() == nil, unsafe Cursor(base: nil).next == nil)
    }
}
