import Synchronization
import Testing

@testable import TrailSymbolizer

#if canImport(Glibc)
import Glibc
#endif

/// A batch's second thread must start beside its creator at once, not queue behind it on the same CPU.
@Suite struct SideThreadTests {
    @Test func theNextCPUWrapsAroundAndSkipsCPUsNotAllowed() {
        var mask = [UInt64](repeating: 0, count: 16)
        mask[0] = 0b1011  // CPUs 0, 1 and 3
        mask[1] = 1  // CPU 64
        #expect(SideThread.nextCPU(after: 0, in: mask) == 1)
        #expect(SideThread.nextCPU(after: 1, in: mask) == 3)
        #expect(SideThread.nextCPU(after: 3, in: mask) == 64)
        #expect(SideThread.nextCPU(after: 64, in: mask) == 0)
        #expect(SideThread.nextCPU(after: 2, in: mask) == 3)  // a CPU not in the mask (the caller was moved)
        var one = [UInt64](repeating: 0, count: 16)
        one[0] = 0b100
        #expect(SideThread.nextCPU(after: 2, in: one) == nil)
        #expect(SideThread.nextCPU(after: -1, in: mask) == nil)
        #expect(SideThread.nextCPU(after: 5000, in: mask) == nil)
    }

    /// The machine has fallen idle and the creator is busy, as a batch's caller is: started the plain way, the
    /// thread first ran on the creator's CPU in 28 to 38 of 40 tries here (on a VM, an idle CPU counts as taken
    /// by the host). Started as a side thread, it runs on the next CPU at once, and then anywhere the process may.
    @Test func aSideThreadStartsOnAnotherCPUAndThenMayRunOnAll() throws {
        let allowed = try #require(SideThread.allowedCPUs())
        let count = allowed.reduce(0) { $0 + $1.nonzeroBitCount }
        var tries = 0
        var sameCPU = 0
        while tries < 20 {
            let report = Report()
            usleep(3000)  // the other CPUs fall idle
            spin(milliseconds: 1)  // a busy caller, as a batch's is
            let before = SideThread.currentCPU()
            let thread = try #require(
                SideThread.start {
                    report.cpu = SideThread.currentCPU()
                    report.allowed = SideThread.allowedCPUs()
                    report.done.store(true, ordering: .releasing)
                })
            let after = SideThread.currentCPU()
            var spins = 0
            while !report.done.load(ordering: .acquiring) { spins &+= 1 }  // busy, as the caller is
            pthread_join(thread, nil)
            #expect(report.allowed == allowed)
            guard before == after else { continue }  // the creator moved meanwhile: the try says nothing
            tries += 1
            if report.cpu == before { sameCPU += 1 }
        }
        if count > 1 {
            #expect(sameCPU == 0)
        } else {
            #expect(sameCPU == tries)
        }
    }

    @Test func aSideThreadCarriesItsName() throws {
        let report = Report()
        let thread = try #require(
            SideThread.start(named: "trail-batch-and-more") {
                var name = [UInt8](repeating: 0, count: 32)
                let file = open("/proc/thread-self/comm", O_RDONLY)
                let count = read(file, &name, name.count)
                close(file)
                report.name = String(decoding: name.prefix(max(0, count)), as: UTF8.self)
            })
        pthread_join(thread, nil)
        #expect(report.name == "trail-batch-and\n")  // the kernel keeps 15 bytes
    }

    private func spin(milliseconds: Int) {
        var start = timespec()
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &start)
        repeat {
            clock_gettime(CLOCK_MONOTONIC, &now)
        } while (now.tv_sec - start.tv_sec) * 1_000_000_000 + (now.tv_nsec - start.tv_nsec) < milliseconds * 1_000_000
    }

    private final class Report: @unchecked Sendable {
        var cpu = -1
        var allowed: [UInt64]?
        var name = ""
        let done = Atomic<Bool>(false)
    }
}
