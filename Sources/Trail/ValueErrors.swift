// The error a call threw (issue 41): a build with values wraps a throwing body whose own statements throw in
//
//     do { … } catch { Trail.threw(error); throw error }
//
// (`do throws(E)` for typed throws; `Trail.threw(error, __trail)` in an async body), so the call's exit shows `throws ParseError.badHeader`. The error is kept as
// a `~>>` result is and written right before the call's EXIT.
internal import CTrailHooks
internal import CTrailShim

extension Trail {
    /// Keeps `error`'s type and description for the innermost call's exit, when that call records values. The
    /// description may run the error's own code (`CustomStringConvertible`): errors thrown inside it are not
    /// described in turn.
    public static func threw(_ error: some Error) {
        guard tracing, trail_values_thrown_wanted() != 0 else { return }
        trail_values_describing(1)
        var text = thrownText(error)
        trail_values_describing(0)
        text.withUTF8 { trail_value_thrown(("throws" as StaticString).utf8Start, $0.baseAddress, $0.count) }
    }

    /// The same for the async call `span` (`catch { Trail.threw(error, __trail); throw error }`), which has no
    /// frame on the thread's stack: kept for its exit.
    public static func threw(_ error: some Error, _ span: Span) {
        guard _slowPath(span.recordsValues), trail_values_thrown_wanted_async() != 0 else { return }
        trail_values_describing(1)
        var text = thrownText(error)
        trail_values_describing(0)
        text.withUTF8 {
            trail_value_thrown_async(span.raw, ("throws" as StaticString).utf8Start, $0.baseAddress, $0.count)
        }
    }

    /// Never throws: the first statement of the `do` the rewriter adds, so that its `catch` is reachable for the
    /// compiler even when the body's only `try` is in an `@autoclosure` that handles its errors.
    @_transparent
    public static func mayThrow() throws {}

    /// The same for `do throws(E)`.
    @_transparent
    public static func mayThrow<Failure: Error>(_: Failure.Type) throws(Failure) {}

    /// `ParseError.badHeader`, `ParseError.line(4)` for an enum; `Type: description` for an error that describes
    /// itself; Swift's own text otherwise (`Inner(code: 3)`), or the type of a class.
    static func thrownText(_ error: some Error) -> String {
        // `as Any`: in a `catch`, `error` is `any Error`, which conforms to `Error` itself and is not opened.
        let type = _typeName(Swift.type(of: error as Any), qualified: false)
        if error is CustomStringConvertible { return type + ": " + String(describing: error) }
        switch Mirror(reflecting: error).displayStyle {
        case .enum?: return type + "." + String(describing: error)
        case .class?: return type
        default: return String(describing: error)
        }
    }
}
