#if canImport(Glibc)
import Glibc
#endif

/// A trace file's bytes in memory, a block at a time. The file is mapped, so reading a block copies nothing:
/// the page cache is the buffer, and a reader can hold a thread's records where they lie until a watermark
/// lets them go. A released block is dropped from the mapping, so resident memory follows what is held, not
/// the file's size. Where a file cannot be mapped, each block is read into a buffer of its own, kept until
/// released.
final class BlockMemory {
    private var descriptor: Int32
    private let mapping: UnsafeMutableRawPointer?
    private let fileSize: Int
    private var buffers: [Int: UnsafeMutableRawBufferPointer] = [:]
    private static let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))

    /// Takes `descriptor`; `sequential` for a reader that goes through the whole file once; `maps` false to
    /// read into buffers (for tests).
    init(descriptor: Int32, fileSize: Int, sequential: Bool, maps: Bool = true) {
        self.fileSize = fileSize
        var mapped: UnsafeMutableRawPointer?
        if maps, fileSize > 0 {
            let address = mmap(nil, fileSize, PROT_READ, MAP_PRIVATE, descriptor, 0)
            if address != MAP_FAILED { mapped = address }
        }
        mapping = mapped
        if let mapped {
            if sequential { _ = madvise(mapped, fileSize, MADV_SEQUENTIAL) }
            close(descriptor)
            self.descriptor = -1
        } else {
            self.descriptor = descriptor
        }
    }

    deinit {
        if let mapping { munmap(mapping, fileSize) }
        for buffer in buffers.values { buffer.deallocate() }
        if descriptor >= 0 { close(descriptor) }
    }

    /// Up to `count` bytes at `offset` (fewer where the file ends), readable until `release` is called for
    /// them. `prefetch` maps them in with one call instead of a page fault per few pages.
    func bytes(at offset: Int, count wanted: Int, prefetch: Bool = false) -> UnsafeRawBufferPointer {
        let count = max(0, min(wanted, fileSize - offset))
        if let mapping {
            if prefetch, count > 0 {
                let start = offset & ~(Self.pageSize - 1)
                // MADV_POPULATE_READ (Linux 5.14), which Glibc's headers here do not name.
                let madvisePopulateRead: Int32 = 22
                _ = madvise(mapping + start, offset + count - start, madvisePopulateRead)
            }
            return UnsafeRawBufferPointer(start: mapping + offset, count: count)
        }
        if let buffer = buffers[offset], buffer.count >= count {
            return UnsafeRawBufferPointer(rebasing: buffer[0 ..< count])
        }
        buffers.removeValue(forKey: offset)?.deallocate()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(count, 1), alignment: 16)
        var filled = 0
        while filled < count {
            let read = pread(descriptor, buffer.baseAddress! + filled, count - filled, off_t(offset + filled))
            if read < 0, errno == EINTR { continue }
            if read <= 0 { break }
            filled += read
        }
        buffers[offset] = UnsafeMutableRawBufferPointer(start: buffer.baseAddress, count: filled)
        return UnsafeRawBufferPointer(rebasing: buffer[0 ..< filled])
    }

    /// Lets go of what `bytes(at: offset, ...)` gave, and of the file's pages up to `offset + span`.
    func release(at offset: Int, span: Int) {
        if let mapping {
            // Whole pages, the one shared with the block before included (its header too): a page still in
            // use is only mapped in again when next read, so this never changes what a reader sees.
            let start = offset & ~(Self.pageSize - 1)
            let end = min(offset + span, fileSize) & ~(Self.pageSize - 1)
            if end > start { _ = madvise(mapping + start, end - start, MADV_DONTNEED) }
            return
        }
        if let buffer = buffers.removeValue(forKey: offset) {
            #if DEBUG
            buffer.initializeMemory(as: UInt8.self, repeating: 0xEE)  // a read after release shows
            #endif
            buffer.deallocate()
        }
    }
}
