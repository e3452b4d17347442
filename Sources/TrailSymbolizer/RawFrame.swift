/// A frame before it becomes public: numbers into an `InternedNames`, -1 when unknown.
struct RawFrame {
    var name: Int32
    var file: Int32
    var line: Int32
    var column: Int32
    var inlined: Bool
    var offset: UInt64?
}
