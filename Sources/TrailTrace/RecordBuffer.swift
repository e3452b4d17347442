#if canImport(Glibc)
import Glibc
#endif
import TrailFormat

/// A thread's records held until a watermark releases them. Between two watermarks the writer may have put a
/// whole ring (2 M records), so this buffer is often tens of megabytes, filled once and read once. It is
/// mapped memory, reserved a ring's worth at a time and touched only as used, with huge pages past its first
/// 2 MiB (a quiet thread stays small): on a 10 MB trace, 4 KiB page faults and the copies of a doubling array
/// took a third of `trail report`'s time.
final class RecordBuffer {
    private(set) var base: UnsafeMutablePointer<TraceRecord>?
    private(set) var count = 0
    private(set) var capacity = 0
    /// A default ring's worth of records, the most one drain of one thread holds.
    static let reserved = 1 << 21
    private static let smallPages = 2 << 20

    deinit { if let base { munmap(base, capacity * TraceRecord.size) } }

    subscript(index: Int) -> TraceRecord {
        @inline(__always) get { base.unsafelyUnwrapped[index] }
    }

    var records: UnsafeBufferPointer<TraceRecord> { UnsafeBufferPointer(start: base, count: count) }

    /// Appends `count` records stored at `bytes` as the file holds them (little-endian, not always aligned).
    func append(_ bytes: UnsafeRawPointer, count added: Int) {
        if count + added > capacity { grow(to: count + added) }
        let target = base.unsafelyUnwrapped + count
        memcpy(target, bytes, added * TraceRecord.size)
        if UInt64(1).littleEndian != 1 {
            for index in 0 ..< added {
                target[index] = TraceRecord(time: UInt64(littleEndian: target[index].time), word: UInt64(littleEndian: target[index].word))
            }
        }
        count += added
    }

    /// Whether `added` more records fit without growing.
    func fits(_ added: Int) -> Bool { count + added <= capacity }

    /// Drops the records before `head`, already handed on, moving the rest to the front. A busy thread always
    /// has records past the last watermark, so its buffer never empties: without this it grew with every
    /// run of records (to 268 MB resident on a 10 GB trace).
    func dropHandled(before head: Int) {
        guard head > 0, let base else { return }
        memmove(base, base + head, (count - head) * TraceRecord.size)
        count -= head
    }

    /// Forgets the records; the memory stays for the next run of a busy thread, up to `keep` records.
    func removeAll(keep: Int) {
        count = 0
        if capacity > keep, let base {
            munmap(base, capacity * TraceRecord.size)
            self.base = nil
            capacity = 0
        }
    }

    /// Reserves more: a ring's worth at first, then twice as much, moving what is held (a rare case: more than
    /// a ring held, which takes threads that the writer drained out of step).
    private func grow(to needed: Int) {
        var records = max(needed, capacity * 2, Self.reserved)
        var mapped = mmap(nil, records * TraceRecord.size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)
        if mapped == MAP_FAILED, records > needed {
            // Strict overcommit or a memory limit: reserve only what is needed now.
            records = max(needed, capacity + capacity / 2, 1 << 12)
            mapped = mmap(nil, records * TraceRecord.size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        }
        let bytes = records * TraceRecord.size
        guard let mapped, mapped != MAP_FAILED else { fatalError("trail: out of memory for \(bytes) bytes of trace records") }
        if bytes > Self.smallPages { _ = madvise(mapped + Self.smallPages, bytes - Self.smallPages, MADV_HUGEPAGE) }
        let grown = mapped.bindMemory(to: TraceRecord.self, capacity: records)
        if let base {
            grown.update(from: base, count: count)
            munmap(base, capacity * TraceRecord.size)
        }
        base = grown
        capacity = records
    }
}
