/// A function's name and where its inlined calls are in its unit's `InlineCalls`: the chain of frames at an
/// address inside the function.
struct InlineTree {
    /// A name not read yet.
    static let unnamed: Int32 = -2

    /// The function's name: `unnamed` when `UnitWalk` read it, and then read at `offset` if the symbol table
    /// has none.
    var name: Int32
    /// The subprogram's DIE offset.
    var offset: UInt64
    /// Into `InlineCalls.calls` and `InlineCalls.ranges`.
    var calls: Range<Int> = 0 ..< 0
    var ranges: Range<Int> = 0 ..< 0
}
