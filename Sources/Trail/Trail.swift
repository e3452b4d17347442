internal import CTrailShim

/// The runtime entry points that `trail instrument` inserts:
///
///     let __trail = Trail.enter("Module.Type.method(x:) @ Module/File.swift:12"); defer { Trail.exit(__trail) }
///
/// The site is a `StaticString`, so a call allocates nothing; the runtime keeps only its address.
public enum Trail {
    /// A traced call in progress, returned by `enter` and handed to `exit`: two words, passed in registers.
    @frozen
    public struct Span {
        @usableFromInline let word: UInt64
        @usableFromInline let start: UInt64

        init(_ span: trail_span) {
            word = span.word
            start = span.start
        }
    }

    /// Records the entry of a synchronous function.
    public static func enter(_ site: StaticString) -> Span {
        Span(trail_enter(site.utf8Start))
    }

    /// Records the entry of an `async` function, whose exit may run on another thread.
    public static func enterAsync(_ site: StaticString) -> Span {
        Span(trail_enter_async(site.utf8Start))
    }

    /// Records the exit matching `span`.
    public static func exit(_ span: Span) {
        trail_exit(trail_span(word: span.word, start: span.start))
    }
}
