#if canImport(Glibc)
import Glibc
#endif

// Programs that change their process after start-up: directory, umask, limits, stacks, privileges.

/// A relative log folder, then chdir("/"): the logs must stay where they were at start-up.
func changeDirectory() {
    busy("before chdir")
    chdir("/")
    busy("after chdir", calls: 100, lines: 3000)
    var buffer = [CChar](repeating: 0, count: 4096)
    say("working directory \(getcwd(&buffer, buffer.count).map { String(cString: $0) } ?? "?")")
}

/// umask(0) after start-up: the program's files get the modes it asks for.
func umaskZero() {
    busy("before umask")
    umask(0)
    let fd = open(work + "/shared.txt", O_WRONLY | O_CREAT | O_TRUNC, 0o666)
    close(fd)
    var info = stat()
    stat(work + "/shared.txt", &info)
    busy("after umask", calls: 100, lines: 2000)
    say("mode \(String(info.st_mode & 0o777, radix: 8))")
}

/// RLIMIT_FSIZE of 64 KiB with SIGXFSZ at its default: the program's own 32 KiB file is written, and Trail's writes
/// past the limit must never kill it.
func fileSizeLimit() {
    busy("before the limit")
    var limit = rlimit(rlim_cur: 64 << 10, rlim_max: 64 << 10)
    guard setrlimit(Int32(RLIMIT_FSIZE.rawValue), &limit) == 0 else { return say("cannot set the limit") }
    // Few lines of its own: untraced they go to stderr, which the tests keep in a file under the same limit.
    busy("under the limit", calls: 20_000, lines: 100)
    let fd = open(work + "/own.dat", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    let block = [UInt8](repeating: 65, count: 32 << 10)
    say("own file: wrote \(block.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }) bytes")
    close(fd)
    for _ in 0 ..< 20 { busy("still under the limit", calls: 1000, lines: 10) }
    say("alive")
}

/// RLIMIT_AS a little above what the process maps now: it still allocates and uses 64 MiB.
func addressSpaceLimit() {
    busy("before the limit")
    var mapped = 0
    if let maps = fopen("/proc/self/maps", "r") {
        var line = [CChar](repeating: 0, count: 1024)
        while fgets(&line, Int32(line.count), maps) != nil {
            let text = String(cString: line)
            let range = text.split(separator: " ")[0].split(separator: "-")
            if range.count == 2, let start = Int(range[0], radix: 16), let end = Int(range[1], radix: 16) {
                mapped += end - start
            }
        }
        fclose(maps)
    }
    var limit = rlimit(rlim_cur: rlim_t(mapped + (256 << 20)), rlim_max: rlim_t(mapped + (256 << 20)))
    guard setrlimit(Int32(RLIMIT_AS.rawValue), &limit) == 0 else { return say("cannot set the limit") }
    busy("under the limit", calls: 2000, lines: 2000)
    guard let memory = malloc(64 << 20) else { return say("cannot allocate 64 MiB") }
    memset(memory, 1, 64 << 20)
    free(memory)
    say("allocated and used 64 MiB")
}

/// Threads with 64 KiB stacks make traced calls and log.
func smallStack() {
    var threads: [pthread_t] = []
    for _ in 0 ..< 4 {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        pthread_attr_setstacksize(&attributes, 64 << 10)
        var thread = pthread_t()
        let result = pthread_create(
            &thread, &attributes,
            { _ in
                busy("small stack", calls: 2000, lines: 200)
                return nil
            }, nil)
        pthread_attr_destroy(&attributes)
        if result == 0 { threads.append(thread) } else { say("pthread_create failed: \(result)") }
    }
    for thread in threads { pthread_join(thread, nil) }
    say("\(threads.count) threads joined")
}

/// Threads that end inside traced calls with pthread_exit, while others go on logging and tracing.
func threadsThatDie() {
    var threads: [pthread_t] = []
    for _ in 0 ..< 8 {
        var thread = pthread_t()
        let result = pthread_create(
            &thread, nil,
            { _ in
                traced("Corpus.dying() @ Corpus/ProcessChanges.swift:100") {
                    busy("dying thread", calls: 200, lines: 20)
                    pthread_exit(nil)
                }
            }, nil)
        if result == 0 { threads.append(thread) }
    }
    for thread in threads { pthread_join(thread, nil) }
    busy("after the threads", calls: 500, lines: 200)
    say("\(threads.count) threads ended inside a traced call")
}

/// A server that started as root drops to nobody after start-up, its log folder still root's: the logs keep
/// their bounds. Not root: nothing to drop, said alike in every build.
func dropPrivileges() {
    busy("as root")
    guard getuid() == 0 else { return say("not root") }
    guard setgroups(0, nil) == 0, setgid(65534) == 0, setuid(65534) == 0 else { return say("cannot drop") }
    for round in 0 ..< 40 { busy("as nobody \(round)", calls: 100, lines: 1000) }
    say("dropped to \(getuid())")
}
