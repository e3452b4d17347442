import Foundation
import MiniHTTP
import Trail

/// The application's handlers: what the traced calls below the library's request are.
enum Routes {
    static let log = Trail.Logger(label: "app.routes")

    static func handle(_ request: HTTPRequest) -> HTTPResponse {
        let parts = request.path.split(separator: "/")
        switch (parts.first, parts.count) {
        case ("items", 2):
            guard let id = Int(parts[1]) else { return HTTPResponse(status: 400, body: "not an item id: \(parts[1])") }
            return HTTPResponse(body: Pricing.quote(item: id))
        case ("health", 1):
            return HTTPResponse(body: "ok")
        case ("crash", 1):
            return HTTPResponse(body: Inventory.crash())
        default:
            log.warning("no route", metadata: ["path": "\(request.path)"])
            return HTTPResponse(status: 404, body: "no route for \(request.path)")
        }
    }
}

enum Pricing {
    static func quote(item id: Int) -> String {
        let base = basePrice(id)
        let total = withTax(base)
        Routes.log.info("quoted", metadata: ["item": "\(id)", "total": "\(total)"])
        return "item \(id): \(total) cents"
    }

    static func basePrice(_ id: Int) -> Int { 100 + (id * 37) % 900 }

    static func withTax(_ cents: Int) -> Int { cents + cents / 5 }
}

enum Inventory {
    static let shelves: [String: String] = ["a": "apples"]

    /// A handler bug: the crash block lands in the log beside the library's last lines.
    static func crash() -> String {
        Routes.log.error("about to read a shelf that does not exist")
        return shelves["z"]!
    }
}
