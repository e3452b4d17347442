// Call-heavy on purpose: the benchmark for tracing cost. `Fib N` computes fib(N) the slow way and prints the
// number of calls, so the cost per call is (time traced - time untraced) / calls.
let n = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 30 : 30
let value = Recursion.fib(n)
print("fib(\(n)) = \(value) in \(Recursion.calls(n)) calls")
