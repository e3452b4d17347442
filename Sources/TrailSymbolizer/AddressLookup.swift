/// The tables that answer address lookups in one ELF file, and the lookups. The file-wide tables (units, symbols)
/// are built when the file is opened; a unit's line table, functions and their inlined calls when an address
/// first falls in the unit, and an inlined call's name when a frame first shows it. Each is a value built by its
/// own file from the DWARF; this owns them all, and the names and files they intern.
struct AddressLookup {
    /// libdw's handle on the DWARF (nil without debug info), and the DWARF addresses' offset from file addresses.
    let dwarf: OpaquePointer?
    let bias: UInt64
    let units: UnitTable
    private var symbols: SymbolTable
    /// By unit number (`isLoaded` once loaded). Not optional: testing or unwrapping an optional element copies
    /// the whole unit, which cost more than a lookup.
    private var loaded: [LoadedUnit]
    private(set) var names = InternedNames()
    /// Frames of the address being written out, kept for their storage.
    private var scratch: [RawFrame] = []
    /// Reads units' functions and functions' inlined calls where it can; libdw does the rest. (`hasReader`: the
    /// same as `reader != nil`, which copies the reader.)
    private var reader: DIEReader?
    private let hasReader: Bool

    init(dwarf: OpaquePointer?, bias: UInt64, units: UnitTable, symbols: SymbolTable, reader: DIEReader?) {
        self.dwarf = dwarf
        self.bias = bias
        self.units = units
        self.symbols = symbols
        self.reader = units.starts.isEmpty ? nil : reader
        hasReader = !units.starts.isEmpty && reader != nil
        loaded = Array(repeating: LoadedUnit(), count: units.offsets.count)
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
        if !loaded[unitIndex].isLoaded {
            let prepared = worker?.claim(unitIndex)
            loaded[unitIndex] = LoadedUnit(
                offset: units.offsets[unitIndex], start: units.starts.isEmpty ? nil : units.starts[unitIndex],
                dwarf: dwarf, reader: &reader, names: &names, prepared: prepared)
        }
        let dwarfAddress = address &- bias
        let location = loaded[unitIndex].lines.location(at: dwarfAddress)
        guard let function = loaded[unitIndex].functions.function(at: dwarfAddress) else {
            var file = location?.file ?? -1
            if location == nil, let symbol { file = symbols.objectFile(symbol.object, names: &names) }
            frames.append(
                RawFrame(
                    name: symbol.map { names.nameID($0.name) } ?? -1, file: file, line: location?.line ?? 0,
                    column: location?.column ?? 0, inlined: false, offset: symbol.map { address - $0.address }))
            return
        }
        let tree = inlineTree(function, unitIndex)
        // Innermost first: each inlined call's location is its caller's call site.
        var file = location?.file ?? -1
        var line = location?.line ?? 0
        var column = location?.column ?? 0
        var current = loaded[unitIndex].calls.innermost(tree, dwarfAddress)
        while let index = current {
            if loaded[unitIndex].calls.calls[index].name == InlineTree.unnamed {
                loaded[unitIndex].calls.calls[index].name = name(
                    at: loaded[unitIndex].calls.calls[index].die, unitIndex)
            }
            let call = loaded[unitIndex].calls.calls[index]
            frames.append(RawFrame(name: call.name, file: file, line: line, column: column, inlined: true, offset: nil))
            let files = loaded[unitIndex].files
            file = call.site.file >= 0 && call.site.file < files.count ? files[Int(call.site.file)] : -1
            (line, column) = (call.site.line, call.site.column)
            current = call.parent >= 0 ? Int(call.parent) : nil
        }
        // The outermost frame takes the symbol table's name, as llvm-symbolizer does.
        var name: Int32
        if let symbol, symbol.name.pointee != 0 {
            name = names.nameID(symbol.name)
        } else {
            name = loaded[unitIndex].calls.trees[tree].name
            if name == InlineTree.unnamed {
                name = self.name(at: loaded[unitIndex].calls.trees[tree].offset, unitIndex)
                loaded[unitIndex].calls.trees[tree].name = name
            }
        }
        frames.append(
            RawFrame(
                name: name, file: file, line: line, column: column, inlined: false,
                offset: dwarfAddress - function.low))
    }

    /// Where a function's inlined calls are in its unit's `InlineCalls`: where `UnitWalk` put them, or read with libdw
    /// on the function's first lookup.
    private mutating func inlineTree(_ function: UnitFunctions.Range, _ unit: Int) -> Int {
        if function.tree >= 0 { return Int(function.tree) }
        let key = Int(truncatingIfNeeded: function.die)
        if let known = loaded[unit].treeIndex[key] { return Int(known) }
        let tree = loaded[unit].calls.read(function.die, dwarf: dwarf, names: &names)
        loaded[unit].treeIndex[key] = Int32(tree)
        return tree
    }

    /// The name of the subprogram or inlined call at a DIE offset in a unit: its linkage name, else its name,
    /// through abstract origins and specifications; with `DIEReader` where it can, else with libdw.
    private mutating func name(at offset: UInt64, _ unit: Int) -> Int32 {
        if let header = loaded[unit].header, hasReader,
            let die = reader!.readDIE(at: Int(clamping: offset), header), die.tag != 0,
            let text = reader!.linkageName(die, header)
        {
            return names.nameID(text)
        }
        guard var die = LibdwDIE.at(offset, in: dwarf) else { return -1 }
        return names.nameID(LibdwDIE.linkageName(&die))
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

    /// `appendText` for many addresses (nil: a line that is not one, printed as an unknown address), with a
    /// `BatchWorker` reading units and demangling names meanwhile. Addresses are looked up unit by unit, in
    /// any order (the text keeps theirs): a unit the worker is still reading waits until the others are done.
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
        // Two frames an address is about what optimized code has: growing by doubling from a few copied the
        // frames into fresh pages at every step.
        frames.reserveCapacity(2 * addresses.count)
        // Per address, where its frames start and end in `frames`.
        var spans = Array(repeating: 0 ..< 0, count: addresses.count)
        // A thread costs some 50 microseconds: for a few addresses doing it all here is quicker.
        let plan = addresses.count >= 64 ? batchPlan(addresses) : nil
        let worker = plan?.worker
        func lookUp(_ index: Int) {
            guard let address = addresses[index] else { return }
            let first = frames.count
            appendFrames(address, to: &frames, worker: worker)
            spans[index] = first ..< frames.count
            guard let worker else { return }
            for frame in frames[first...] where frame.name >= 0 && names.queue(frame.name) {
                worker.add(frame.name, names.names[Int(frame.name)].pointer)
            }
        }
        if let plan {
            for index in plan.elsewhere { lookUp(index) }
            var later: [Int] = []
            for unit in plan.order {
                if plan.worker.isReading(unit) {
                    later.append(unit)
                } else {
                    for index in plan.inUnit[unit] { lookUp(index) }
                }
            }
            for unit in later { for index in plan.inUnit[unit] { lookUp(index) } }
        } else {
            for index in addresses.indices { lookUp(index) }
        }
        for (id, display) in worker?.finish() ?? [] { names.setDisplay(id, display) }
        for span in spans {
            write(frames[span], to: &out)
            if out.count > 1 << 16 { flush(&out) }
        }
    }

    /// The units not loaded yet in the order the batch first needs them, the addresses in each (by position
    /// in the batch), the batch's other addresses, and a worker given the units when it can read them.
    private func batchPlan(
        _ addresses: [UInt64?]
    ) -> (worker: BatchWorker, order: [Int], inUnit: [[Int]], elsewhere: [Int]) {
        var inUnit = Array(repeating: [Int](), count: loaded.count)
        var order: [Int] = []
        var elsewhere: [Int] = []
        for (index, address) in addresses.enumerated() {
            guard let address, dwarf != nil, let unit = units.unit(at: address &- bias), !loaded[unit].isLoaded else {
                elsewhere.append(index)
                continue
            }
            if inUnit[unit].isEmpty { order.append(unit) }
            inUnit[unit].append(index)
        }
        // The worker reads units only with a `DIEReader`; without, it demangles.
        let worker = BatchWorker(
            reader: hasReader ? reader : nil, order: hasReader ? order : [], starts: hasReader ? units.starts : [])
        return (worker, order, inUnit, elsewhere)
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
