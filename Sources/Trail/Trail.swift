// Instrumented code inlines the hooks below, which then read the C runtime's mode and call it directly. The only
// public import: every traced file loads what Trail's interface imports, and CTrailHooks loads nothing else, so
// tracing never changes name lookup in a traced file (ImportLookupTests checks it).
public import CTrailHooks

/// The runtime entry points that `trail instrument` inserts. A synchronous function gets
///
///     Trail.enter("Module.Type.method(x:) @ Module/File.swift:12"); defer { Trail.exit() }
///
/// or, when its body is one expression, `Trail.enter(…); return expression ~>| Trail.TypedExit<Int>()`
/// (`TrailExit`), and an `async` one, which may end on another thread than it started on,
///
///     let __trail = Trail.enterAsync("Module.Type.load() @ Module/File.swift:20"); defer { Trail.exit(__trail) }
///
/// The site is a `StaticString`, so a call allocates nothing; the runtime keeps only its address. The hooks
/// are inlined even into unoptimized code: with tracing off, each costs a load and a branch.
public enum Trail {
    /// An async call in progress, returned by `enterAsync` and handed to `exit(_:)`.
    @frozen
    public struct Span: Sendable {
        public let raw: trail_span

        @_transparent
        public init(_ raw: trail_span) { self.raw = raw }

        /// Whether the call records its arguments and result (`enterAsync(_:values:)`): SPAN_VALUES in the C
        /// runtime's internal.h.
        @_transparent
        public var recordsValues: Bool { raw.word & (1 << 60) != 0 }
    }

    /// Whether tracing is on: the load and branch every hook starts with, and the first condition of a values
    /// build's entry (`if Trail.tracing, Trail.enterWithValues(…) { … }`), where a hook returning the answer was
    /// stored and loaded again by unoptimized code first. Unoptimized code compares and branches on it in two
    /// instructions only without the `_slowPath` hint, which is a value of its own there; optimized code needs the
    /// hint to move the traced path out of line. A debug build of Trail is one of a debug build of the program:
    /// SwiftPM builds every package in the same configuration.
    @_transparent
    public static var tracing: Bool {
        #if DEBUG
        trail_mode_address.pointee != 0
        #else
        _slowPath(trail_mode_address.pointee != 0)
        #endif
    }

    /// Records the entry of a synchronous function; `exit()` must follow on the same thread.
    @_transparent
    public static func enter(_ site: StaticString) {
        if tracing { trail_enter_sync(site.utf8Start) }
    }

    /// Records the exit of the innermost synchronous function entered on this thread.
    @_transparent
    public static func exit() {
        if tracing { trail_exit_sync() }
    }

    /// The right operand of `value ~>| Trail.Exit()` (module `TrailExit`), which a body that is one value ends
    /// with instead of a `defer`: unoptimized code calls a `defer` body as a function of its own at every return,
    /// and that call was most of what tracing compiled in but off cost.
    @frozen
    public struct Exit {
        @_transparent
        public init() {}
    }

    /// The right operand of `value ~>| Trail.TypedExit<Result>()`, where `Result` is the body's written result
    /// type: it fixes the operator's type, so the value is checked against that type as a bare `return` checks
    /// it, where `Trail.Exit()` lets the value's own type pick it (see `TrailExit`).
    @frozen
    public struct TypedExit<Result: ~Copyable & ~Escapable> {
        @_transparent
        public init() {}
    }

    /// Records the entry of an `async` function.
    @_transparent
    public static func enterAsync(_ site: StaticString) -> Span {
        guard tracing else { return Span(trail_span(word: 0, start: 0)) }
        return Span(trail_enter_async(site.utf8Start))
    }

    /// Records the exit matching `span`, on whichever thread the function ends.
    @_transparent
    public static func exit(_ span: Span) {
        if _slowPath(span.raw.word != 0) { trail_exit_async(span.raw) }
    }
}
