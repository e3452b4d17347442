#if canImport(Glibc)
import Glibc
#endif

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

    private let swiftDemangle: SwiftDemangle?
    private let cxxDemangle: CxxDemangle?
    private var cache: [String: String] = [:]
    private let lock = NSLockLike()

    private init() {
        let handle = dlopen(nil, RTLD_NOW)
        let runtime = dlsym(handle, "swift_demangle")
        swiftDemangle = runtime.map { unsafeBitCast($0, to: SwiftDemangle.self) }
        cxxDemangle = dlsym(handle, "__cxa_demangle").map { unsafeBitCast($0, to: CxxDemangle.self) }
        // <usr>/lib/swift/linux/libswiftCore.so (from this process's mappings) -> <usr>/lib/libswiftDemangle.so
        if var path = Self.loadedLibrary("libswiftCore.so") {
            for _ in 0 ..< 3 { path = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)]) }
            if let library = dlopen(path + "/libswiftDemangle.so", RTLD_NOW | RTLD_LOCAL) {
                toolchainFull = dlsym(library, "swift_demangle_getDemangledName").map { unsafeBitCast($0, to: ToolchainDemangle.self) }
                toolchainSimplified = dlsym(library, "swift_demangle_getSimplifiedDemangledName")
                    .map { unsafeBitCast($0, to: ToolchainDemangle.self) }
            }
        }
    }

    /// The path a library of this process was loaded from, from /proc/self/maps.
    static func loadedLibrary(_ name: String) -> String? {
        guard let file = fopen("/proc/self/maps", "r") else { return nil }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 4096)
        while fgets(&line, Int32(line.count), file) != nil {
            let text = String(decoding: line.prefix { $0 != 0 && $0 != 10 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if text.hasSuffix("/" + name), let slash = text.firstIndex(of: "/") { return String(text[slash...]) }
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
            if let swiftDemangle, let text = name.withCString({ swiftDemangle($0, strlen($0), nil, nil, 0) }) {
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
