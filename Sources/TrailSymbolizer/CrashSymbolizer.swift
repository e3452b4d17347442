import TrailFormat

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
    /// By path: the opened file, or why it could not be (not a `Result`, whose `Error` requirement costs a
    /// conformance scan at start-up; structs, not tuples, for the same reason).
    private var opened: [String: Opened] = [:]
    private struct Opened { var image: ELFImage?, error: SymbolizerError? }
    private struct ResolvedImage { var file: ELFImage?, name: String }

    public init(debugDirectories: [String] = []) {
        self.debugDirectories = debugDirectories
    }

    public func symbolize(_ block: CrashBlock) -> SymbolizedCrash {
        var notes: [String] = []
        // Per image of the block, in its order: the opened file (nil when refused or missing) and its file name.
        var resolved = [ResolvedImage?](repeating: nil, count: block.images.count)
        var frames: [SymbolizedCrash.Frame] = []
        frames.reserveCapacity(block.frames.count)
        for frame in block.frames {
            guard let which = block.imageIndex(containing: frame.address) else {
                frames.append(
                    .init(
                        index: frame.index, address: frame.address, isReturnAddress: frame.isReturnAddress,
                        image: nil, frames: []))
                continue
            }
            let image = block.images[which]
            if resolved[which] == nil {
                let (file, note) = resolve(image)
                resolved[which] = ResolvedImage(file: file, name: Self.fileName(image.path))
                if let note { notes.append(note) }
            }
            // A return address points after the call; the call itself is the byte before.
            // (Wrapping: a made-up log may put a return address at an image's very base.)
            let lookup = frame.address &- image.base &- (frame.isReturnAddress ? 1 : 0)
            frames.append(
                .init(
                    index: frame.index, address: frame.address, isReturnAddress: frame.isReturnAddress,
                    image: resolved[which]!.name, frames: resolved[which]!.file?.symbolize(lookup) ?? []))
        }
        return SymbolizedCrash(block: block, frames: frames, notes: notes)
    }

    /// The ELF file for an image, and a note when it was not found, refused, or lacks line information.
    /// Separate debug info wins over a stripped file with the same build ID: a debug file found by build ID
    /// (`--debug-dir` folders, then /usr/lib/debug) or, inside libdwfl, by `.gnu_debuglink`.
    func resolve(_ image: CrashBlock.Image) -> (ELFImage?, String?) {
        var refused: String?
        var stripped: ELFImage?
        if access(image.path, F_OK) == 0 {
            let opened = open(image.path)
            if let file = opened.image {
                if image.buildID == nil || file.buildID == image.buildID {
                    if file.hasDebugInfo { return (file, nil) }
                    stripped = file
                } else {
                    refused =
                        "\(image.path): build ID \(file.buildID ?? "none") does not match the crash's \(image.buildID!); "
                        + "this is not the binary that crashed, so its frames are not symbolized"
                }
            } else {
                refused = opened.error?.description
            }
        }
        if let buildID = image.buildID ?? stripped?.buildID, let debug = debugFile(buildID: buildID),
            debug.hasDebugInfo || stripped == nil
        {
            return (debug, debug.hasDebugInfo ? nil : strippedNote(debug))
        }
        if let stripped { return (stripped, strippedNote(stripped)) }
        return (
            nil,
            refused ?? "\(image.path): not found\(image.buildID.map { " (build ID \($0); try --debug-dir)" } ?? "")"
        )
    }

    /// A file with this build ID in a debug folder's `.build-id/xx/rest.debug` (or the binary itself there).
    private func debugFile(buildID: String) -> ELFImage? {
        guard buildID.count > 2 else { return nil }
        let head = String(buildID.prefix(2))
        let rest = String(buildID.dropFirst(2))
        for directory in ELFImage.debugFolders(debugDirectories) {
            for candidate in ["\(directory)/.build-id/\(head)/\(rest).debug", "\(directory)/.build-id/\(head)/\(rest)"]
            where access(candidate, F_OK) == 0 {
                if let file = open(candidate).image, file.buildID == buildID { return file }
            }
        }
        return nil
    }

    /// What a file without line information still gives, and where its debug info was looked for.
    private func strippedNote(_ file: ELFImage) -> String {
        let id = file.buildID.map { id in "build ID \(id.prefix(2))/\(id.dropFirst(2)).debug" } ?? "no build ID"
        let folders = ELFImage.debugFolders(debugDirectories).map { "\($0)/.build-id" }.joined(separator: ", ")
        let link =
            file.debugLink.map { "; .gnu_debuglink \($0) beside it, in its .debug folder and those folders" }
            ?? "; no .gnu_debuglink"
        let looked = "looked for a debug file (\(id)) in \(folders)\(link)"
        guard file.hasSymbolTable else {
            return
                "\(file.path): no debug info and no symbol table (fully stripped): no lines, and no function names but the "
                + "few its dynamic symbol table exports; \(looked)"
        }
        return "\(file.path): no debug info (stripped?): function names from its symbol table only, no lines; \(looked)"
    }

    private func open(_ path: String) -> Opened {
        if let known = opened[path] { return known }
        let result: Opened
        do {
            result = Opened(image: try ELFImage(path: path, debugDirectories: debugDirectories), error: nil)
        } catch {
            result = Opened(image: nil, error: error)
        }
        opened[path] = result
        return result
    }

    static func fileName(_ path: String) -> String {
        guard let slash = path.utf8.lastIndex(of: 47) else { return path }
        return String(path[path.utf8.index(after: slash)...])
    }
}
