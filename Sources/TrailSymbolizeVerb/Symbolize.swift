import TrailCommandLine
import TrailFormat
import TrailSymbolizer

#if canImport(Glibc)
import Glibc
#endif

public let symbolizeVerb = Verb(
    name: "symbolize",
    summary: "Turn crash blocks in a log, or addresses, into readable stacks (libdw).",
    usage:
        "[LOG|FOLDER|MARKER|-] [--format text|json|markdown] [--debug-dir DIR]... [--snippet N]\n       trail symbolize --obj BINARY [--json] [ADDRESS...]",
    details: """
        Finds every crash block in the log (default: standard input; a log folder or a crash marker means the log
        that holds the newest crash, as 'trail report --crash' finds it), locates each image by its recorded path
        or by build ID under --debug-dir folders (.build-id/xx/rest.debug), refuses a binary whose build ID does
        not match, and prints each stack with demangled names, file:line:column and inlined frames.
        With --obj, symbolizes file addresses (as llvm-symbolizer --obj does), from the arguments or one per
        line on standard input.
        """,
    options: [
        .value("--obj", placeholder: "BINARY", help: "Address mode: the ELF file the addresses belong to."),
        .flag("--json", help: "Address mode: one JSON object per address, like llvm-symbolizer's."),
        .value("--format", "-f", placeholder: "FORMAT", help: "Crash mode: text (default), json or markdown."),
        .value(
            "--debug-dir", placeholder: "DIR", help: "A folder with .build-id/xx/rest.debug files (repeatable).",
            repeatable: true),
        .value(
            "--snippet", placeholder: "N", help: "Show N lines of source around each frame when the file is at hand."),
    ],
    conflicts: [["obj", "format"], ["obj", "snippet"], ["obj", "debug-dir"]],
    needs: ["json": ["obj"]],
    run: { arguments in
        if let object = arguments.value("obj") { return try symbolizeAddresses(object, arguments) }
        return try symbolizeLog(arguments)
    })

private func symbolizeAddresses(_ object: String, _ arguments: ParsedArguments) throws -> Int32 {
    let image: ELFImage
    do {
        image = try ELFImage(path: object)
    } catch {
        throw VerbFailure(error.description)
    }
    let json = arguments.has("json")
    var output: [UInt8] = []
    output.reserveCapacity(1 << 17)
    // Text mode takes the addresses of each chunk of input together, so that names are demangled on a second
    // thread meanwhile.
    var batch: [UInt64?] = []
    func flush() {
        if !batch.isEmpty {
            image.appendText(batch, to: &output) { full in
                writeAll(1, full)
                full.removeAll(keepingCapacity: true)
            }
            batch.removeAll(keepingCapacity: true)
        }
        if output.count > 1 << 16 {
            writeAll(1, output)
            output.removeAll(keepingCapacity: true)
        }
    }
    func one(_ text: ArraySlice<UInt8>) {
        if !json {
            batch.append(AddressOutput.parseAddress(text))
            return
        }
        guard let address = AddressOutput.parseAddress(text) else {
            let shown = String(decoding: text, as: UTF8.self)
            output += Array("{\"Address\":\(JSONString.quote(shown)),\"Error\":\"not an address\"}\n".utf8)
            return
        }
        output += Array(
            AddressOutput.json(address: "0x" + String(address, radix: 16), module: object, image.symbolize(address))
                .utf8)
        flush()
    }
    if arguments.positionals.isEmpty {
        // Line by line as standard input comes: no copy of the whole input, nor an array of its lines.
        // Chunks of up to 1 MiB, each a batch (a batch's second thread pays off the more addresses it has); the
        // buffer is left uninitialized, so that a short input touches only the pages it fills.
        var chunk = [UInt8](unsafeUninitializedCapacity: 1 << 20) { _, count in count = 1 << 20 }
        var partial: [UInt8] = []  // a line that runs on into the next chunk
        while true {
            let count = chunk.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            if count <= 0 { break }
            var start = 0
            for index in 0 ..< count where chunk[index] == 10 {
                if partial.isEmpty {
                    if index > start { one(chunk[start ..< index]) }
                } else {
                    partial += chunk[start ..< index]
                    one(partial[...])
                    partial.removeAll(keepingCapacity: true)
                }
                start = index + 1
            }
            partial += chunk[start ..< count]
            flush()
        }
        if !partial.isEmpty { one(partial[...]) }
    } else {
        for text in arguments.positionals { one(Array(text.utf8)[...]) }
    }
    flush()
    writeAll(1, output)
    // The process ends next: freeing the image's tables would only cost time (a twentieth of a run).
    _ = Unmanaged.passRetained(image)
    return 0
}

private func symbolizeLog(_ arguments: ParsedArguments) throws -> Int32 {
    guard arguments.positionals.count <= 1 else {
        throw UsageError(description: "give one log file, or - for standard input")
    }
    let format = try crashFormat(arguments.value("format"))
    let snippet =
        try arguments.value("snippet").map { text in
            guard let lines = Int(text), lines >= 0 else {
                throw UsageError(description: "--snippet needs a number of lines")
            }
            return lines
        } ?? 0
    var path = arguments.positionals.first ?? "-"
    // A log folder or a crash marker, as `trail report --crash` takes them: the log that holds the newest crash.
    var info = stat()
    if path != "-", stat(path, &info) == 0,
        info.st_mode & S_IFMT == S_IFDIR || path.hasSuffix(CrashMarker.fileExtension)
    {
        do {
            let located = try CrashReport.locate(path).log
            if located != path {
                printError("trail symbolize: reading \(located), which holds the newest crash in \(path)")
            }
            path = located
        } catch {
            throw VerbFailure.input("\(error)")
        }
    }
    let text: String
    do {
        text = path == "-" ? String(decoding: readAllStandardInput(), as: UTF8.self) : try CrashReport.readText(path)
    } catch {
        throw VerbFailure("\(error)")
    }
    let name = path == "-" ? "<stdin>" : path
    let parsed = CrashLog.parse(text)
    for problem in parsed.problems { printError("\(name):\(problem.line): warning: \(problem.message)") }
    guard !parsed.blocks.isEmpty else {
        throw VerbFailure.input("\(name): error: no crash blocks (lines '=== TRAIL CRASH BEGIN v1 ===')")
    }
    let symbolizer = CrashSymbolizer(debugDirectories: arguments.all("debug-dir"))
    let crashes = parsed.blocks.map(symbolizer.symbolize)
    printOut(format.render(crashes, CrashOutputFormat.Options(snippet: snippet, logName: name)))
    return parsed.problems.isEmpty ? 0 : 1
}

public func crashFormat(_ text: String?) throws -> CrashOutputFormat {
    guard let text else { return .text }
    guard let format = CrashOutputFormat(rawValue: text) else {
        throw UsageError(description: "--format: text, json or markdown")
    }
    return format
}
