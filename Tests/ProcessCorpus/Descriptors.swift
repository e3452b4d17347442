#if canImport(Glibc)
import Glibc
#endif

// Programs that close, reuse and redirect descriptors after start-up.

/// Closes every descriptor above 2, as daemonizers and `closefrom` do.
func closeDescriptorsAbove2() {
    for fd in Int32(3) ..< 4096 { close(fd) }
}

/// Writes `records` records of 1 KiB to `path`, a traced call and log lines between each, then reads the file back
/// and says whether it holds exactly what was written.
func writeDatabase(_ path: String, records: Int = 64) -> String {
    let fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0o644)
    guard fd >= 0 else { return "cannot open database: errno \(errno)" }
    var expected: [UInt8] = []
    for record in 0 ..< records {
        let number = String(record)
        let label = "record " + String(repeating: "0", count: 5 - number.count) + number + " "
        let bytes = Array(label.utf8) + [UInt8](repeating: 46, count: 1011) + [10]
        expected += bytes
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        busy("record \(record)", calls: 20, lines: 5)
    }
    finish()  // what the logger holds goes out while the database is open
    usleep(100_000)  // and the trace's writer drains (every few milliseconds) while it is
    var found = [UInt8](repeating: 0, count: expected.count + 4096)
    let count = pread(fd, &found, found.count, 0)
    close(fd)
    return count == expected.count && Array(found[0 ..< count]) == expected
        ? "database holds \(records) records, nothing else"
        : "database corrupted: \(count) bytes for \(expected.count)"
}

/// A daemonizer's steps: fork (the parent ends at once), setsid, fork again, chdir("/"), umask(0), every descriptor
/// above 2 closed, /dev/null on 0-2; then its database. The daemon leaves WORK/done with what it saw.
func daemonize() {
    busy("before daemon")
    finish()
    if fork() != 0 {
        say("parent ends")
        return
    }
    setsid()
    if fork() != 0 { _exit(0) }
    chdir("/")
    umask(0)
    closeDescriptorsAbove2()
    let null = open("/dev/null", O_RDWR)
    for fd in Int32(0) ... 2 where fd != null { dup2(null, fd) }
    if null > 2 { close(null) }
    let verdict = writeDatabase(work + "/data.db")
    busy("daemon")
    finish()
    let done = open(work + "/done.tmp", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    _ = (verdict + "\n").withCString { write(done, $0, strlen($0)) }
    close(done)
    rename(work + "/done.tmp", work + "/done")
    exit(0)
}

/// Every descriptor above 2 closed without daemonizing, then the program's own files take the low numbers.
func closeAndReopen() {
    busy("before closing")
    usleep(150_000)  // long enough for Trail to have opened its files (the trace opens after 50 ms)
    closeDescriptorsAbove2()
    say(writeDatabase(work + "/data.db"))
    busy("after closing", calls: 100, lines: 2000)
    say(writeDatabase(work + "/second.db", records: 8))
}

/// The program points its own stderr at a file of its own: what it writes there is its own.
func dup2OverStandardError() {
    busy("before dup2")
    let file = open(work + "/own-stderr.txt", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    dup2(file, 2)
    close(file)
    for line in 0 ..< 100 { fputs("own stderr line \(line)\n", stderr) }
    busy("after dup2", calls: 100, lines: 0)
    fflush(stderr)
    say("stderr is the program's file")
}

/// Under a low RLIMIT_NOFILE, as many files as the program can open: Trail's descriptors must not take its numbers.
func descriptorLimit() {
    busy("before the limit")
    var limit = rlimit(rlim_cur: 32, rlim_max: 32)
    guard setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return say("cannot set the limit") }
    var opened: [Int32] = []
    while true {
        let fd = open("/dev/null", O_RDONLY)
        if fd < 0 { break }
        opened.append(fd)
    }
    say("opened \(opened.count) descriptors, the lowest \(opened.min() ?? -1), the highest \(opened.max() ?? -1)")
    for fd in opened { close(fd) }
    busy("under the limit", calls: 100, lines: 2000)
    say("done")
}
