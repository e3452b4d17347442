// Async functions in a build with values (issue 41): arguments after the async entry, results and errors kept from
// the `return` or `catch` to the exit, which may be on another thread; calls the arguments' descriptions and the
// error's make are its children. One task at a time, so the replay's order is fixed (expected-replay.txt).
struct Missing: Error, CustomStringConvertible {
    let path: String
    var description: String { "no \(path)" }
}

func square(_ x: Int) -> Int { x * x }

func load(path: String, retries: Int) async throws -> String {
    await Task.yield()
    if retries < 0 { throw Missing(path: path) }
    return "contents of \(path) after \(square(retries))"
}

func count(_ items: [Int], limit: Int?) async -> Int {
    await Task.yield()
    return min(items.count, limit ?? items.count)
}

func login(user: String, password: String) async -> Bool { !password.isEmpty }

func scaled(_ value: Double, by factor: Double) async -> Double { value * factor }

func ping() async {}

func nested(_ depth: Int) async -> Int {
    if depth == 0 { return 0 }
    return await nested(depth - 1) + 1
}

// `if` and `switch` expressions: each branch's value is recorded.
func grade(_ n: Int) -> String {
    switch n {
    case 0: "zero"
    case 1 ... 9: if n > 4 { "high" } else { "low" }
    default: "many"
    }
}

func label(_ n: Int) async -> String { if n > 1 { await label(n - 1) + "+" } else { "one" } }

struct Main {
    static func run() async {
        print((try? await load(path: "/etc/app.conf", retries: 2)) ?? "none")
        do { _ = try await load(path: "/missing", retries: -1) } catch { print("caught \(error)") }
        print(await count([1, 2, 3], limit: 2), await count([5], limit: nil))
        print(await login(user: "ann", password: "hunter2"))
        await ping()
        print(await scaled(1.5, by: 2), await nested(2))
        print(grade(0), grade(7), grade(3), await label(2))
    }
}

await Main.run()
