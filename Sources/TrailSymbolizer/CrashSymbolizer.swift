#if canImport(Glibc)
import Glibc
#endif

/// A crash block with its frames resolved to functions and source lines.
public struct SymbolizedCrash: Sendable {
    public struct Frame: Sendable {
        public var index: Int
        public var address: UInt64
        public var isReturnAddress: Bool
        /// The image's file name, when the address is in a known image.
        public var image: String?
        /// Innermost first; empty when nothing is known at the address.
        public var frames: [SymbolizedFrame]
    }

    public var block: CrashBlock
    public var frames: [Frame]
    /// What could not be done, per image: not found, build ID mismatch, no debug info.
    public var notes: [String]
}

/// Turns crash blocks into stacks. Each image is found by the path the block recorded or, by build ID, in
/// debug folders (`.build-id/xx/rest.debug`, the layout of /usr/lib/debug); a file whose build ID differs
/// from the recorded one is refused, since its addresses would name the wrong code. Images are opened and
/// indexed once per run.
public final class CrashSymbolizer {
    private let debugDirectories: [String]
    private var opened: [String: Result<ELFImage, SymbolizerError>] = [:]

    public init(debugDirectories: [String] = []) {
        self.debugDirectories = debugDirectories
    }

    public func symbolize(_ block: CrashBlock) -> SymbolizedCrash {
        var notes: [String] = []
        var resolved: [String: ELFImage?] = [:]
        var frames: [SymbolizedCrash.Frame] = []
        for frame in block.frames {
            guard let image = block.image(containing: frame.address) else {
                frames.append(.init(index: frame.index, address: frame.address, isReturnAddress: frame.isReturnAddress,
                                    image: nil, frames: []))
                continue
            }
            if resolved[image.path] == nil {
                let (file, note) = resolve(image)
                resolved[image.path] = .some(file)
                if let note { notes.append(note) }
            }
            // A return address points after the call; the call itself is the byte before.
            let lookup = frame.address - image.base - (frame.isReturnAddress ? 1 : 0)
            let symbolized = resolved[image.path].flatMap { $0 }?.symbolize(lookup) ?? []
            frames.append(.init(index: frame.index, address: frame.address, isReturnAddress: frame.isReturnAddress,
                                image: image.path.split(separator: "/").last.map(String.init), frames: symbolized))
        }
        return SymbolizedCrash(block: block, frames: frames, notes: notes)
    }

    /// The ELF file for an image, and a note when it was not found, refused, or lacks line information.
    func resolve(_ image: CrashBlock.Image) -> (ELFImage?, String?) {
        var refused: String?
        if access(image.path, F_OK) == 0 {
            switch open(image.path) {
            case .success(let file):
                if image.buildID == nil || file.buildID == image.buildID { return (file, debugNote(file)) }
                refused = "\(image.path): build ID \(file.buildID ?? "none") does not match the crash's \(image.buildID!); "
                    + "this is not the binary that crashed, so its frames are not symbolized"
            case .failure(let error):
                refused = error.description
            }
        }
        if let buildID = image.buildID, buildID.count > 2 {
            let head = String(buildID.prefix(2)), rest = String(buildID.dropFirst(2))
            for directory in debugDirectories {
                for candidate in ["\(directory)/.build-id/\(head)/\(rest).debug", "\(directory)/.build-id/\(head)/\(rest)"]
                    where access(candidate, F_OK) == 0 {
                    if case .success(let file) = open(candidate), file.buildID == buildID { return (file, debugNote(file)) }
                }
            }
        }
        return (nil, refused ?? "\(image.path): not found\(image.buildID.map { " (build ID \($0); try --debug-dir)" } ?? "")")
    }

    private func open(_ path: String) -> Result<ELFImage, SymbolizerError> {
        if let known = opened[path] { return known }
        let result: Result<ELFImage, SymbolizerError>
        do {
            result = .success(try ELFImage(path: path))
        } catch {
            result = .failure(error)
        }
        opened[path] = result
        return result
    }

    private func debugNote(_ file: ELFImage) -> String? {
        file.hasDebugInfo ? nil : "\(file.path): no debug info (stripped?): function names from its symbol table only, no lines"
    }
}
