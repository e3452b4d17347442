import Foundation
import Tracing
import Trail
import TrailTracing

/// `spans`: the shapes server code opens spans in, each with traced calls inside: a synchronous `withSpan` in a
/// traced call (with a nested one that throws), an async one in an async call (with a child task), a span started in one task and
/// ended in another (renamed, and linked from a later one), and context carried through headers and back.
enum SpanShapes {
    static func run() async throws {
        Checkout.run()
        try await Shipping.run()
        await Handoff.run()
        Propagation.run()
    }
}

enum PaymentError: Error { case declined(cents: Int) }

enum Checkout {
    static func run() {
        withSpan("checkout") { span in
            span.attributes["cart.items"] = 3
            let cents = total([100, 250, 75])
            do {
                try withSpan("charge card", ofKind: .client) { _ in try charge(cents) }
            } catch {
                Routes.log.warning("charge failed", metadata: ["error": "\(error)"])
            }
        }
    }

    static func total(_ cents: [Int]) -> Int { cents.reduce(0, +) }

    static func charge(_ cents: Int) throws { throw PaymentError.declined(cents: cents) }
}

enum Shipping {
    static func run() async throws {
        await withSpan("ship order") { span in
            async let box = pickBox(items: 3)  // a child task: under the span too
            let boxGrams = await box
            let grams = await weigh(items: 3) + boxGrams
            span.addEvent(SpanEvent(name: "weighed", attributes: ["grams": .int64(Int64(grams))]))
            span.attributes["shipping.grams"] = grams
            _ = label(grams)
        }
    }

    static func weigh(items: Int) async -> Int {
        try? await Task.sleep(nanoseconds: 1_000_000)
        return items * 250
    }

    static func label(_ grams: Int) -> String { "\(grams) g" }

    static func pickBox(items: Int) async -> Int { items > 2 ? 40 : 20 }
}

enum Handoff {
    static func run() async {
        prepare()
        let job = InstrumentationSystem.tracer.startSpan("queued job", ofKind: .producer)
        job.operationName = "queued job 42"
        // Ended by another task: a detached one, which inherits no context.
        await Task.detached { job.end() }.value
        withSpan("follow-up") { span in
            span.addLink(SpanLink(context: job.context, attributes: ["reason": "retry"]))
            prepare()
        }
    }

    static func prepare() {}
}

enum Propagation {
    struct Headers: Injector, Extractor {
        func inject(_ value: String, forKey key: String, into headers: inout [String: String]) { headers[key] = value }
        func extract(key: String, from headers: [String: String]) -> String? { headers[key] }
    }

    static func run() {
        var headers: [String: String] = [:]
        withSpan("outgoing", ofKind: .client) { _ in send(into: &headers) }
        var context = ServiceContext.topLevel
        InstrumentationSystem.instrument.extract(headers, into: &context, using: Headers())
        withSpan("incoming", context: context, ofKind: .server) { _ in receive() }
        var malformed = ServiceContext.topLevel
        InstrumentationSystem.instrument.extract(
            ["traceparent": "00-0000000000000000000000000000000-00f067aa0ba902b7-01"],
            into: &malformed, using: Headers())
        print(
            "traceparent \(headers["traceparent"].map { $0.count == 55 && $0.hasPrefix("00-") && $0.hasSuffix("-01") } == true ? "well-formed" : "MALFORMED")"
        )
        print("malformed traceparent \(malformed.trailSpanContext == nil ? "ignored" : "TAKEN")")
    }

    /// Inside a traced call inside the span: the traced call is the parent the next service sees.
    static func send(into headers: inout [String: String]) {
        InstrumentationSystem.instrument.inject(ServiceContext.current ?? .topLevel, into: &headers, using: Headers())
    }

    static func receive() {}
}
