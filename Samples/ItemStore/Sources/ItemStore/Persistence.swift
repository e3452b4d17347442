import Foundation

/// Where a store keeps its items between runs.
protocol ItemPersistence {
    func load() throws -> [Item]
    func save(_ items: [Item]) throws
}

/// A JSON file, replaced atomically on save so that a crash never leaves half a file.
struct JSONFilePersistence: ItemPersistence {
    let url: URL

    func load() throws -> [Item] {
        guard FileManager.default.fileExists(atPath: url.path) else { return [] }
        return try decoder.decode([Item].self, from: Data(contentsOf: url))
    }

    func save(_ items: [Item]) throws {
        try encoder.encode(items).write(to: url, options: .atomic)
    }

    private var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }

    private var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
