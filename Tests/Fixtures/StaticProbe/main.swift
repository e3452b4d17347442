// A traced program that StaticLinkTests builds with `-static-executable` and `-static-stdlib`: it starts a
// thread, a child through posix_spawn, one through system(), then replaces itself with exec, each from inside a
// traced call. `static-probe [LOG_DIR]`: with a folder, Trail.bootstrap logs there first (and with
// STATIC_PROBE_CRASH set, the probe then crashes).
import Trail

#if canImport(Glibc)
import Glibc
#endif

func traced(_ body: () -> Void) {
    Trail.enter("StaticProbe.traced(_:) @ StaticProbe/main.swift:10")
    defer { Trail.exit() }
    body()
}

func cStrings(_ strings: [String]) -> [UnsafeMutablePointer<CChar>?] { strings.map { strdup($0) } + [nil] }

if CommandLine.arguments.count > 1 {
    var configuration = Trail.Configuration(appName: "static", directory: CommandLine.arguments[1])
    configuration.destination = .file
    _ = try Trail.bootstrap(configuration)
    Logger(label: "static").info("bootstrapped")
    // Asked by SanitizerTests: a bad access that the sanitizer reports and ends the process with.
    if getenv("STATIC_PROBE_CRASH") != nil { traced { print(UnsafePointer<Int>(bitPattern: 8)!.pointee) } }
}

traced {
    var thread = pthread_t()
    let created = pthread_create(&thread, nil, { _ in traced {}; return nil }, nil)
    if created == 0 { pthread_join(thread, nil) }
    print("thread \(created)")

    var pid: pid_t = 0
    let argv = cStrings(["sh", "-c", "echo spawned ${TRACEPARENT:-none}"])
    fflush(stdout)
    let spawned = posix_spawn(&pid, "/bin/sh", nil, nil, argv, environ)
    var status: Int32 = 0
    if spawned == 0 { waitpid(pid, &status, 0) }
    print("posix_spawn \(spawned) status \(status)")
    fflush(stdout)
    print("system \(system("echo system ${TRACEPARENT:-none}; exit 2") >> 8)")
    fflush(stdout)
    execv("/bin/sh", cStrings(["sh", "-c", "echo exec ${TRACEPARENT:-none}"]))
    print("exec \(errno)")
}
