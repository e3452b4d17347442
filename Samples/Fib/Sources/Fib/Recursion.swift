enum Recursion {
    static func fib(_ n: Int) -> Int {
        n < 2 ? n : fib(n - 1) + fib(n - 2)
    }

    /// Calls `fib(n)` makes: 2 fib(n+1) - 1.
    static func calls(_ n: Int) -> Int {
        var (a, b) = (0, 1)
        for _ in 0 ..< n + 1 { (a, b) = (b, a + b) }
        return 2 * a - 1
    }
}
