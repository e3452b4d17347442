#if canImport(Glibc)
import Glibc
#endif
import CLibdw

/// Readable names through the demanglers already at hand, found with `dlsym`: the toolchain's
/// libswiftDemangle (the names `swift demangle` prints, and a simplified form), else the Swift runtime's
/// `swift_demangle`, and `__cxa_demangle` for C++. Results are cached: stacks repeat names.
final class Demangler: @unchecked Sendable {
    static let shared = Demangler()

    private typealias ToolchainDemangle = @convention(c) (UnsafePointer<CChar>?, UnsafeMutablePointer<CChar>?, Int) -> Int
    private var toolchainFull: ToolchainDemangle?
    private var toolchainSimplified: ToolchainDemangle?
    private var simplifiedCache: [String: String] = [:]

    private typealias SwiftDemangle = @convention(c) (UnsafePointer<CChar>?, Int, UnsafeMutablePointer<CChar>?,
                                                      UnsafeMutablePointer<Int>?, UInt32) -> UnsafeMutablePointer<CChar>?
    private typealias CxxDemangle = @convention(c) (UnsafePointer<CChar>?, UnsafeMutablePointer<CChar>?,
                                                    UnsafeMutablePointer<Int>?, UnsafeMutablePointer<Int32>?) -> UnsafeMutablePointer<CChar>?

    private let swiftDemangle: SwiftDemangle
    private let cxxDemangle: CxxDemangle?
    private var cache: [String: String] = [:]
    private let lock = NSLockLike()

    private init() {
        swiftDemangle = runtimeDemangle
        cxxDemangle = dlsym(dlopen(nil, RTLD_NOW), "__cxa_demangle").map { unsafeBitCast($0, to: CxxDemangle.self) }
        if let library = Self.toolchainLibrary().flatMap({ dlopen($0 + "/libswiftDemangle.so", RTLD_NOW | RTLD_LOCAL) }) {
            toolchainFull = dlsym(library, "swift_demangle_getDemangledName").map { unsafeBitCast($0, to: ToolchainDemangle.self) }
            toolchainSimplified = dlsym(library, "swift_demangle_getSimplifiedDemangledName")
                .map { unsafeBitCast($0, to: ToolchainDemangle.self) }
        }
    }

    /// The toolchain's `usr/lib`: from this process's libswiftCore.so (`<usr>/lib/swift/linux/`), else, in a
    /// binary with the standard library linked in, from `swift` on PATH (`<usr>/bin/swift`).
    static func toolchainLibrary() -> String? {
        func parent(_ path: String, _ levels: Int) -> String {
            var path = path
            for _ in 0 ..< levels { path = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)]) }
            return path
        }
        // The object that holds the runtime's demangler: libswiftCore.so, or this executable.
        let runtime: SwiftDemangle = runtimeDemangle
        if let name = trail_object_containing(unsafeBitCast(runtime, to: UnsafeRawPointer.self)) {
            let core = String(cString: name)
            if core.hasSuffix("/libswiftCore.so") { return parent(core, 3) }
        }
        for directory in (getenv("PATH").map { String(cString: $0) } ?? "").split(separator: ":") {
            let candidate = String(directory) + "/swift"
            guard access(candidate, X_OK) == 0, let resolved = realpath(candidate, nil) else { continue }
            defer { free(resolved) }
            return parent(String(cString: resolved), 2) + "/lib"
        }
        return nil
    }

    /// `static Crashes.badPointer(_:)` rather than `static CrashLab.Crashes.badPointer(Swift.Int) -> Swift.Int`,
    /// when the toolchain's demangler is there.
    func simplified(_ name: String) -> String {
        lock.withLock {
            if let known = simplifiedCache[name] { return known }
            let result = isSwift(name) ? toolchain(toolchainSimplified, name) ?? compute(name) : compute(name)
            simplifiedCache[name] = result
            return result
        }
    }

    private func isSwift(_ name: String) -> Bool {
        name.hasPrefix("$s") || name.hasPrefix("$S") || name.hasPrefix("_$s") || name.hasPrefix("_T0") || name.hasPrefix("$e")
    }

    private func toolchain(_ function: ToolchainDemangle?, _ name: String) -> String? {
        guard let function else { return nil }
        return name.withCString { mangled -> String? in
            var buffer = [CChar](repeating: 0, count: 1024)
            var length = function(mangled, &buffer, buffer.count)
            if length >= buffer.count {
                buffer = [CChar](repeating: 0, count: length + 1)
                length = function(mangled, &buffer, buffer.count)
            }
            guard length > 0 else { return nil }
            return String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }

    private var byPointer: [UInt: (mangled: String, demangled: String)] = [:]

    /// The name at a C string that stays put (a string table's), mangled and demangled: cached by address,
    /// which is cheaper than hashing the text.
    func names(_ pointer: UnsafePointer<CChar>) -> (mangled: String, demangled: String) {
        let key = UInt(bitPattern: pointer)
        if let known = lock.withLock({ byPointer[key] }) { return known }
        let mangled = String(cString: pointer)
        let result = (mangled, mangled.isEmpty ? "??" : demangle(mangled))
        lock.withLock { byPointer[key] = result }
        return result
    }

    func demangle(_ name: String) -> String {
        lock.withLock {
            if let known = cache[name] { return known }
            let result = compute(name)
            cache[name] = result
            return result
        }
    }

    private func compute(_ name: String) -> String {
        if isSwift(name) {
            if let full = toolchain(toolchainFull, name) { return full }
            if let text = name.withCString({ swiftDemangle($0, strlen($0), nil, nil, 0) }) {
                defer { free(text) }
                return String(cString: text)
            }
        } else if name.hasPrefix("_Z"), let cxxDemangle {
            var status: Int32 = 0
            if let text = name.withCString({ cxxDemangle($0, nil, nil, &status) }), status == 0 {
                defer { free(text) }
                return String(cString: text)
            }
        }
        return name
    }
}

/// The runtime's demangler, linked directly: `dlsym` cannot see it when the standard library is linked in.
@_silgen_name("swift_demangle")
private func runtimeDemangle(_ mangled: UnsafePointer<CChar>?, _ length: Int, _ output: UnsafeMutablePointer<CChar>?,
                             _ outputLength: UnsafeMutablePointer<Int>?, _ flags: UInt32) -> UnsafeMutablePointer<CChar>?

/// A pthread mutex, to keep this module free of Foundation.
final class NSLockLike: @unchecked Sendable {
    private var mutex = pthread_mutex_t()
    init() { pthread_mutex_init(&mutex, nil) }
    deinit { pthread_mutex_destroy(&mutex) }
    func withLock<Result>(_ body: () -> Result) -> Result {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return body()
    }
}
