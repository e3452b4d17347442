import Foundation
import Synchronization
import TrailCommandLine
import TrailTrace

#if canImport(Glibc)
import Glibc
#endif

/// The reading behind `trail tui`: a thread of its own reads the traces (`CallRowReader`) and leaves each
/// slice's rows here, then wakes the terminal's loop through `wakeDescriptor`, a pipe's end it polls together
/// with the keyboard. The screen so shows the first calls at once and answers keys while a large trace is read.
final class TUILoading: Sendable {
    private let pending = Mutex<[CallRows]>([])
    private let stopping = Atomic<Bool>(false)
    private let done = Atomic<Bool>(false)
    /// The pipe's ends: the loop polls the first, the reading writes a byte to the second (none when it is full:
    /// one is enough to wake).
    let wakeDescriptor: Int32
    private let wakeWriter: Int32

    init() throws {
        // Slices of rows are made on the reading thread and freed on this one, megabytes each: past glibc's
        // sliding mmap threshold they would come from the heaps, whose freed pages stay resident (a 10 GB
        // trace's tui then passed 256 MB). A fixed threshold keeps them mapped apart, and given back.
        _ = setMallocOption(mallocMmapThreshold, 256 << 10)
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            throw VerbFailure(
                "cannot make a pipe to read traces beside the screen: \(String(cString: strerror(errno)))")
        }
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        (wakeDescriptor, wakeWriter) = (ends[0], ends[1])
    }

    /// Starts reading `files`, which belong to the reading thread from now on until `isDone`. `sliceDelay`
    /// (seconds) slows the reading down, for tests that act while it goes on.
    func start(_ files: [TraceFile], limit: Int, sliceDelay: Double) {
        let handoff = Handoff(files)
        let thread = Thread { [self] in
            // A resize is for the terminal's loop: its poll returns on the signal, this thread's would not.
            var resize = sigset_t()
            sigemptyset(&resize)
            sigaddset(&resize, SIGWINCH)
            pthread_sigmask(SIG_BLOCK, &resize, nil)
            let reader = CallRowReader(handoff.files, limit: limit) { rows in
                self.pending.withLock { $0.append(rows) }
                self.wake()
                if sliceDelay > 0, !rows.finished { Thread.sleep(forTimeInterval: sliceDelay) }
                return !self.stopping.load(ordering: .relaxed)
            }
            if sliceDelay > 0 { reader.blocksPerSlice = 1 }
            reader.read()
            self.done.store(true, ordering: .releasing)
            self.wake()
        }
        // Child processes are read inside their parents' calls: a deep nesting needs a deep stack.
        thread.stackSize = 16 << 20
        thread.start()
    }

    /// The slices read since the last call.
    func take() -> [CallRows] {
        var bytes = [UInt8](repeating: 0, count: 256)
        while read(wakeDescriptor, &bytes, bytes.count) > 0 {}
        return pending.withLock { slices in
            defer { slices.removeAll() }
            return slices
        }
    }

    /// The reading ends at its next slice.
    func stop() { stopping.store(true, ordering: .relaxed) }

    /// The reading thread is done with the files (it read them all, or stopped): they are the caller's again.
    var isDone: Bool { done.load(ordering: .acquiring) }

    private func wake() {
        var one: UInt8 = 1
        _ = write(wakeWriter, &one, 1)
    }

    /// The files, handed from the thread that opened them to the one that reads them: neither touches them while
    /// the other may (`isDone` says when they come back).
    private final class Handoff: @unchecked Sendable {
        let files: [TraceFile]
        init(_ files: [TraceFile]) { self.files = files }
    }
}

/// glibc's `mallopt` and its M_MMAP_THRESHOLD, which the Glibc module does not declare.
@_silgen_name("mallopt") private func setMallocOption(_ option: Int32, _ value: Int32) -> Int32
private let mallocMmapThreshold: Int32 = -3
