import Foundation
import Testing
import TrailTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// A set-user-ID program runs with more privilege than whoever starts it, who also chose its environment and its
/// parent's: no TRAIL_* setting, log folder or home may come from there (secure_getenv's rule, AT_SECURE), or a
/// user could make a root program create, rename and delete files in a folder of the user's choosing.
@Suite(.enabled(if: getuid() == 0, "making a set-user-ID root program needs root"))
struct PrivilegedProgramTests {
    @Test func aSetUserIDProgramTakesNoLocationFromItsCaller() throws {
        let root = Paths.temporaryDirectory("setuid")
        defer { try? FileManager.default.removeItem(atPath: root) }
        chmod(root, 0o755)
        // The executable's name is the app's name, and so the default log folder's: one of this test's own.
        let name = "trail-setuid-\(getpid())"
        let program = root + "/" + name
        try FileManager.default.copyItem(atPath: Paths.buildDirectory + "/trail-corpus", toPath: program)
        chown(program, 0, 0)
        chmod(program, 0o4755)
        let work = root + "/work"
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        let chosen = root + "/chosen-by-the-caller"
        var home = [CChar](repeating: 0, count: 4096)
        var entry = passwd()
        var found: UnsafeMutablePointer<passwd>?
        getpwuid_r(0, &entry, &home, home.count, &found)
        let rootHome = String(cString: entry.pw_dir)
        let defaultFolder = rootHome + "/.local/state/" + name
        defer { try? FileManager.default.removeItem(atPath: defaultFolder) }

        let asNobody = "setpriv --reuid=65534 --regid=65534 --clear-groups"
        // The caller's own environment names folders for everything.
        let own = try run(
            "sh",
            [
                "-c",
                "\(asNobody) env TRAIL_TRACE=record TRAIL_TRACE_FILE=\"$1/own/%p.trace\" TRAIL_LOG_DIR=\"$1/logs\" "
                    + "XDG_STATE_HOME=\"$1/state\" HOME=\"$1/home\" TRAIL_CORPUS_LOG_DIR=default \"$2\" umask-zero \"$3\"",
                "sh", chosen, program, work,
            ])
        #expect(own.shellStatus == 0, "\(own.stderr)")
        #expect(own.stdout == "mode 666\n")
        // And a parent whose environment records, which a child without TRAIL_TRACE otherwise follows.
        let inherited = try run(
            "env",
            [
                "TRAIL_TRACE=record", "TRAIL_TRACE_FILE=\(chosen)/parent/%p.trace", "sh", "-c",
                "\(asNobody) env -u TRAIL_TRACE -u TRAIL_TRACE_FILE \"$1\" umask-zero \"$2\"; echo status $?",
                "sh", program, work,
            ])
        #expect(inherited.stdout == "mode 666\nstatus 0\n", "\(inherited.stderr)")
        #expect(!FileManager.default.fileExists(atPath: chosen), "nothing where the caller pointed")
        // The log went where the user the program runs as keeps its state.
        #expect(FileManager.default.fileExists(atPath: defaultFolder + "/" + name + ".log"))
    }
}
