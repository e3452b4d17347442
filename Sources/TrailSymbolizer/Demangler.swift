#if canImport(Glibc)
import Glibc
#endif

/// Readable names from the demanglers inside the Swift runtime this binary already carries: `swift_demangle`
/// for the full form (with `TypeSugar`, what `swift demangle` prints), and the backtracer's `_swift_backtrace_demangle` for the
/// simplified form it shows in crash reports (Swift and C++ alike). Linking them directly costs nothing at
/// start-up, where loading the toolchain's libswiftDemangle.so would load a second runtime. Results are
/// cached: stacks repeat names.
final class Demangler: @unchecked Sendable {
    static let shared = Demangler()

    private var full: [String: String] = [:]
    private var simple: [String: String] = [:]
    private var recentSimplified = Array(repeating: NamePair(name: "", result: ""), count: 8)
    private var recentNext = 0
    private struct NamePair { var name: String, result: String }
    private let lock = PthreadLock()

    private init() {}

    /// `static Crashes.badPointer(_:)` rather than `static CrashLab.Crashes.badPointer(Swift.Int) -> Swift.Int`.
    func simplified(_ name: String) -> String {
        lock.withLock {
            // Stacks repeat a few names frame after frame, and the copies share storage: comparing is then
            // nearly free, where hashing a long mangled name is not.
            for recent in recentSimplified where recent.name == name { return recent.result }
            let result: String
            if let known = simple[name] {
                result = known
            } else {
                result = name.withCString { Self.take(runtimeBacktraceDemangle($0, strlen($0), nil, nil)) } ?? name
                simple[name] = result
            }
            recentSimplified[recentNext] = NamePair(name: name, result: result)
            recentNext = (recentNext + 1) % recentSimplified.count
            return result
        }
    }

    /// The full form: module-qualified, with argument and result types.
    func demangle(_ name: String) -> String {
        lock.withLock {
            if let known = full[name] { return known }
            let result = compute(name)
            full[name] = result
            return result
        }
    }

    /// The full form, neither cached nor locked: for a caller that keeps each name's result (`InternedNames`),
    /// where hashing long mangled names into the cache cost more than it saved.
    func demangleOnce(_ name: String) -> String { compute(name) }

    /// The same from a C string, as UTF-8: a Swift name goes to the runtime without a `String` made of it first.
    func demangleOnce(_ name: UnsafePointer<CChar>) -> [UInt8] {
        let swift =
            name[0] == 36 && (name[1] == 115 || name[1] == 83 || name[1] == 101)  // $s $S $e
            || name[0] == 95 && (name[1] == 36 && name[2] == 115 || name[1] == 84 && name[2] == 48)  // _$s _T0
        if swift, let text = runtimeDemangle(name, strlen(name), nil, nil, 0) {
            defer { free(text) }
            let count = strlen(text)
            if count > 0 {
                let bytes = UnsafeBufferPointer(
                    start: UnsafeRawPointer(text).assumingMemoryBound(to: UInt8.self), count: count)
                return TypeSugar.apply(bytes) ?? Array(bytes)
            }
        }
        return Array(compute(String(cString: name)).utf8)
    }

    private static func isSwift(_ name: String) -> Bool {
        name.hasPrefix("$s") || name.hasPrefix("$S") || name.hasPrefix("_$s") || name.hasPrefix("_T0")
            || name.hasPrefix("$e")
    }

    private func compute(_ name: String) -> String {
        if Self.isSwift(name) {
            return name.withCString { Self.take(runtimeDemangle($0, strlen($0), nil, nil, 0)) }.map(TypeSugar.apply)
                ?? name
        }
        if name.hasPrefix("_Z") {
            var status: Int32 = 0
            let text = name.withCString { cxxDemangle($0, nil, nil, &status) }
            if status == 0 { return Self.take(text) ?? name }
            free(text)
        }
        return name
    }

    /// A string the demangler allocated with malloc, copied and freed.
    private static func take(_ text: UnsafeMutablePointer<CChar>?) -> String? {
        guard let text else { return nil }
        defer { free(text) }
        return text.pointee == 0 ? nil : String(cString: text)
    }
}

/// The demanglers are linked directly: `dlsym` cannot see into a static executable.
@_silgen_name("__cxa_demangle")
private func cxxDemangle(
    _ mangled: UnsafePointer<CChar>?, _ output: UnsafeMutablePointer<CChar>?,
    _ outputLength: UnsafeMutablePointer<Int>?, _ status: UnsafeMutablePointer<Int32>?
) -> UnsafeMutablePointer<CChar>?

@_silgen_name("swift_demangle")
private func runtimeDemangle(
    _ mangled: UnsafePointer<CChar>?, _ length: Int, _ output: UnsafeMutablePointer<CChar>?,
    _ outputLength: UnsafeMutablePointer<Int>?, _ flags: UInt32
) -> UnsafeMutablePointer<CChar>?

/// The backtracer's demangler (runtime SPI, in every Swift runtime since 5.9): simplified Swift names, and C++
/// through `__cxa_demangle`; nil for a name that is neither.
@_silgen_name("_swift_backtrace_demangle")
private func runtimeBacktraceDemangle(
    _ mangled: UnsafePointer<CChar>?, _ length: Int, _ output: UnsafeMutablePointer<CChar>?,
    _ outputLength: UnsafeMutablePointer<Int>?
) -> UnsafeMutablePointer<CChar>?

/// A pthread mutex, to keep this module free of Foundation.
final class PthreadLock: @unchecked Sendable {
    private var mutex = pthread_mutex_t()
    init() { pthread_mutex_init(&mutex, nil) }
    deinit { pthread_mutex_destroy(&mutex) }
    func withLock<Result>(_ body: () -> Result) -> Result {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return body()
    }
}
