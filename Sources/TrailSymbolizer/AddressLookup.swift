/// The tables that answer address lookups in one ELF file, and the lookups. The file-wide tables (units, symbols)
/// are built when the file is opened; a unit's line table and functions when an address first falls in the unit,
/// a function's inlined calls on its first lookup. Each is a value built by its own file from the DWARF; this
/// owns them all, and the names and files they intern.
struct AddressLookup {
    /// libdw's handle on the DWARF (nil without debug info), and the DWARF addresses' offset from file addresses.
    let dwarf: OpaquePointer?
    let bias: UInt64
    let units: UnitTable
    private var symbols: SymbolTable
    /// By unit number, once loaded.
    private var loaded: [LoadedUnit?]
    /// By DIE offset: an index into `functions`.
    private var functionIndex = IntMap()
    private var functions: [InlineTree] = []
    private(set) var names = InternedNames()
    /// Frames of the address being written out, kept for their storage.
    private var scratch: [RawFrame] = []
    /// Reads units' functions and functions' inlined calls where it can; libdw does the rest.
    private var reader: DIEReader?

    init(dwarf: OpaquePointer?, bias: UInt64, units: UnitTable, symbols: SymbolTable, reader: DIEReader?) {
        self.dwarf = dwarf
        self.bias = bias
        self.units = units
        self.symbols = symbols
        self.reader = units.starts.isEmpty ? nil : reader
        loaded = Array(repeating: nil, count: units.offsets.count)
    }

    var hasDebugInfo: Bool { dwarf != nil && !units.isEmpty }

    /// The frames at a file address, innermost first; empty when nothing is known there.
    mutating func frames(_ address: UInt64) -> [SymbolizedFrame] {
        rawFrames(address).map { frame in
            SymbolizedFrame(
                mangledName: frame.name >= 0 ? names.names[Int(frame.name)].mangled : "",
                file: frame.file >= 0 ? names.files[Int(frame.file)].text : nil, line: Int(frame.line),
                column: Int(frame.column), inlined: frame.inlined, offset: frame.offset)
        }
    }

    mutating func rawFrames(_ address: UInt64) -> [RawFrame] {
        var frames: [RawFrame] = []
        appendFrames(address, to: &frames)
        return frames
    }

    /// Appends the frames at a file address, innermost first.
    mutating func appendFrames(_ address: UInt64, to frames: inout [RawFrame], worker: BatchWorker? = nil) {
        let symbol = symbols.symbol(at: address)
        guard dwarf != nil, let unitIndex = units.unit(at: address &- bias) else {
            guard let symbol else { return }
            frames.append(
                RawFrame(
                    name: names.nameID(symbol.name), file: symbols.objectFile(symbol.object, names: &names), line: 0,
                    column: 0, inlined: false, offset: address - symbol.address))
            return
        }
        if loaded[unitIndex] == nil {
            loaded[unitIndex] = LoadedUnit(
                offset: units.offsets[unitIndex], start: units.starts.isEmpty ? nil : units.starts[unitIndex],
                dwarf: dwarf, reader: &reader, names: &names, prepared: worker?.claim(unitIndex))
        }
        let dwarfAddress = address &- bias
        let location = loaded[unitIndex]!.lines.location(at: dwarfAddress)
        guard let function = loaded[unitIndex]!.functions.function(at: dwarfAddress) else {
            var file = location?.file ?? -1
            if location == nil, let symbol { file = symbols.objectFile(symbol.object, names: &names) }
            frames.append(
                RawFrame(
                    name: symbol.map { names.nameID($0.name) } ?? -1, file: file, line: location?.line ?? 0,
                    column: location?.column ?? 0, inlined: false, offset: symbol.map { address - $0.address }))
            return
        }
        let tree = inlineTree(function.die, unitIndex)
        // Innermost first: each inlined call's location is its caller's call site.
        var file = location?.file ?? -1
        var line = location?.line ?? 0
        var column = location?.column ?? 0
        var current = tree.innermost(dwarfAddress)
        while let index = current {
            let call = tree.calls[index]
            frames.append(RawFrame(name: call.name, file: file, line: line, column: column, inlined: true, offset: nil))
            (file, line, column) = call.site
            current = call.parent
        }
        // The outermost frame takes the symbol table's name, as llvm-symbolizer does.
        let name = symbol != nil && symbol!.name.pointee != 0 ? names.nameID(symbol!.name) : tree.name
        frames.append(
            RawFrame(
                name: name, file: file, line: line, column: column, inlined: false,
                offset: dwarfAddress - function.low))
    }

    /// The function's inlined calls, read on its first lookup.
    private mutating func inlineTree(_ offset: UInt64, _ unit: Int) -> InlineTree {
        if let known = functionIndex[Int(truncatingIfNeeded: offset)] { return functions[Int(known)] }
        let files = loaded[unit]!.files
        var tree: InlineTree?
        if let header = loaded[unit]!.header, reader != nil {
            tree = InlineTree(offset: offset, unit: header, reader: &reader!, unitFiles: files, names: &names)
        }
        let found = tree ?? InlineTree(offset: offset, dwarf: dwarf, unitFiles: files, names: &names)
        functions.append(found)
        functionIndex[Int(truncatingIfNeeded: offset)] = Int32(functions.count - 1)
        return found
    }

    /// Appends llvm-symbolizer's text for an address: per frame, the function, then `file:line:column`.
    mutating func appendText(_ address: UInt64, to out: inout [UInt8]) {
        var frames: [RawFrame] = []
        swap(&frames, &scratch)
        defer { swap(&frames, &scratch) }
        frames.removeAll(keepingCapacity: true)
        appendFrames(address, to: &frames)
        write(frames[...], to: &out)
    }

    /// `appendText` for many addresses (nil: a line that is not one, printed as an unknown address), their
    /// names demangled on a second thread while this one reads DWARF: over thousands of addresses the two
    /// take about as long.
    /// `flush` is called whenever `out` passes 64 KiB: a batch's text is megabytes, and growing one array to
    /// that size faults in fresh pages all the way.
    mutating func appendText(
        _ addresses: [UInt64?], to out: inout [UInt8], flush: (inout [UInt8]) -> Void
    ) {
        // The frames' storage is kept from batch to batch, for the same reason.
        var frames: [RawFrame] = []
        swap(&frames, &scratch)
        defer { swap(&frames, &scratch) }
        frames.removeAll(keepingCapacity: true)
        var ends: [Int] = []
        ends.reserveCapacity(addresses.count)
        // A thread costs some 50 microseconds: for a few addresses doing it all here is quicker.
        let worker =
            addresses.count >= 64
            ? BatchWorker(reader: reader, order: unitsToLoad(addresses), starts: units.starts) : nil
        for address in addresses {
            let first = frames.count
            if let address { appendFrames(address, to: &frames, worker: worker) }
            if let worker {
                for index in first ..< frames.count where frames[index].name >= 0 && names.queue(frames[index].name) {
                    worker.add(frames[index].name, names.names[Int(frames[index].name)].mangled)
                }
            }
            ends.append(frames.count)
        }
        for (id, display) in worker?.finish() ?? [] { names.setDisplay(id, display) }
        var start = 0
        for end in ends {
            write(frames[start ..< end], to: &out)
            start = end
            if out.count > 1 << 16 { flush(&out) }
        }
    }

    /// The units not loaded yet that `DIEReader` can read for these addresses, in the order they are first needed.
    private func unitsToLoad(_ addresses: [UInt64?]) -> [Int] {
        guard dwarf != nil, reader != nil, !units.starts.isEmpty else { return [] }
        var seen = Array(repeating: false, count: loaded.count)
        var order: [Int] = []
        for case let address? in addresses {
            guard let unit = units.unit(at: address &- bias), loaded[unit] == nil, !seen[unit] else { continue }
            seen[unit] = true
            order.append(unit)
        }
        return order
    }

    /// An address's frames as text, and the blank line after them.
    private mutating func write(_ frames: ArraySlice<RawFrame>, to out: inout [UInt8]) {
        if frames.isEmpty {
            out.append(contentsOf: "??\n??:0:0\n".utf8)
        }
        for frame in frames {
            if frame.name >= 0 {
                out.append(contentsOf: names.display(frame.name))
            } else {
                out.append(contentsOf: "??".utf8)
            }
            out.append(10)
            if frame.file >= 0 {
                out.append(contentsOf: names.files[Int(frame.file)].bytes)
            } else {
                out.append(contentsOf: "??".utf8)
            }
            out.append(58)
            appendDecimal(Int(frame.line), to: &out)
            out.append(58)
            appendDecimal(Int(frame.column), to: &out)
            out.append(10)
        }
        out.append(10)
    }
}
