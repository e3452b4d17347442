import Foundation

// ItemStore: a command-line inventory that keeps its items in a JSON file.
var arguments = Array(CommandLine.arguments.dropFirst())
var storePath = "items.json"
if arguments.first == "--store", arguments.count >= 2 {
    storePath = arguments[1]
    arguments.removeFirst(2)
}

do {
    let command = try Command(arguments)
    let isDemo = if case .demo = command { true } else { false }
    // The demo starts empty, with fixed serials and a fixed clock, so that its output never changes.
    if isDemo { try? FileManager.default.removeItem(atPath: storePath) }
    let store = try Store(
        persistence: JSONFilePersistence(url: URL(fileURLWithPath: storePath)),
        serials: isDemo ? SeededSerials(seed: 2026) : RandomSerials(),
        clock: isDemo ? { Date(timeIntervalSince1970: 1_796_220_000) } : Date.init)
    try await command.run(on: store)
} catch is UsageError {
    FileHandle.standardError.write(Data((Command.usage + "\n").utf8))
    exit(2)
} catch {
    FileHandle.standardError.write(Data("ItemStore: \(error)\n".utf8))
    exit(1)
}
