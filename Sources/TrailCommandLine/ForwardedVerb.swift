#if canImport(Glibc)
import Glibc
#endif

/// A verb that `trail` hands to another executable beside it. `trail` is a static binary without SwiftSyntax,
/// so the viewers start in a millisecond or two; the verbs that parse Swift or XML live in binaries that
/// load what they need.
public struct ForwardedVerb: Sendable {
    public var name: String
    public var summary: String
    /// The executable, in `trail`'s own folder.
    public var executable: String
    /// True when the executable holds only this verb, and takes the verb's arguments alone.
    public var onlyVerb = false
}

/// Every forwarded verb, defined once: `trail` lists and forwards them, the executables that hold them take
/// their summaries from here.
public enum ForwardedVerbs {
    public static let instrument = ForwardedVerb(
        name: "instrument", summary: "Insert an entry/exit trace call into every function.", executable: "trail-rewrite"
    )
    public static let strip = ForwardedVerb(
        name: "strip", summary: "Remove what 'trail instrument' inserted.", executable: "trail-rewrite")
    public static let scan = ForwardedVerb(
        name: "scan",
        summary:
            "List the Never functions, result builders and builder requirements declared in files, for 'instrument --declarations'.",
        executable: "trail-rewrite")
    public static let setup = ForwardedVerb(
        name: "setup", summary: "Give a package's manifest the TRAIL=1 pattern, so 'TRAIL=1 swift build' traces it.",
        executable: "trail-rewrite")
    public static let resources = ForwardedVerb(
        name: "resources",
        summary: "Write Swift constants for a target's resource files, or for the identifiers in one XML file.",
        executable: "trail-resources", onlyVerb: true)

    public static let test = ForwardedVerb(
        name: "test",
        summary: "Trace a package's tests with nothing to edit: a traced copy, built and run, then a summary.",
        executable: "trail-rewrite")
    public static let run = ForwardedVerb(
        name: "run", summary: "Trace one executable product of a package with nothing to edit, then replay its calls.",
        executable: "trail-rewrite")

    public static let all = [test, run, instrument, strip, scan, setup, resources]
}

/// Replaces this process with the verb's executable from this program's folder, passing the verb and
/// `arguments` on. Returns only when that cannot be done, with the error printed.
public func forward(_ verb: ForwardedVerb, arguments: [String]) -> Int32 {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    guard length > 0 else {
        printError(
            "trail \(verb.name): cannot find this program's folder (/proc/self/exe): \(String(cString: strerror(errno)))"
        )
        return 1
    }
    let own = String(decoding: buffer[0 ..< length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    let folder = own.lastIndex(of: "/").map { String(own[..<$0]) } ?? "."
    let path = folder + "/" + verb.executable
    let argv = ([path] + (verb.onlyVerb ? [] : [verb.name]) + arguments).map { strdup($0) } + [nil]
    execv(path, argv)
    let reason = String(cString: strerror(errno))
    printError(
        """
        trail \(verb.name): cannot run \(path): \(reason). '\(verb.name)' lives in \(verb.executable), which is \
        built beside trail: run 'swift build --product \(verb.executable)' (a plain 'swift build' builds it too).
        """)
    return 1
}
