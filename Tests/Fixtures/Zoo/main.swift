// The syntax zoo: every kind of body the rewriter instruments or skips, run plain and instrumented.
// Its standard output must be the same both ways; its trace is compared to expected-trace.txt.
import Foundation

var shelf = Shelf(name: "zoo")
shelf.add(Animal(name: "ant", legs: 6))
shelf.add(Animal(name: "bee", legs: 6))
shelf[0] = Animal(name: "cat", legs: 4)
print("shelf:", shelf.names, "legs:", shelf.totalLegs, "first:", shelf[0].name)
shelf.label = "renamed"
print("label:", shelf.label, "count:", shelf.count)

let v = Vector(x: 1, y: 2) + Vector(x: 3, y: 4)
print("vector:", v, -v, v.length, Vector.zero)
var counter = Counter()
counter.bump()
counter.bump(by: 3)
print("counter:", counter.value, "parity:", counter.parity, "sign:", Counter.sign(of: -2))

print("box:", Box(7).map { $0 * 2 }.value, Box("s").describe())
print("shapes:", [Shape.circle(radius: 1), .square(side: 2)].map(\.kind), Shape(code: 1)?.kind ?? "none", Shape(code: 9)?.kind ?? "none")
do {
    let node = try Node(value: 3)
    print("node:", node.value, node.doubled)
} catch {
    print("node failed")
}
_ = Node.make(count: 2)
print("errors:", (try? Parser.parse("12")) ?? -1, (try? Parser.parse("x")) ?? -1)
print("typed:", Parser.strictReport(""))
print("rethrows:", Parser.apply { 5 })
print("throwing:", Throwing.report())
print("conditional:", Conditional.platform, Conditional.answer())
print("skips:", Skips.inlined(2), Skips.transparent(2), Skips.ignored(2), Skips.built, Skips.withClosure())
print("builders:", Builders.run())
print("ignored file:", IgnoredFile.value())
print("async:", await Async.fetch(3))
print("generic:", largest([3, 9, 4]), Pair(1, "a").swapped())
Lifecycle.run()
Logging.run()
print("closures:", Closures.run())
Conditional.note()
print("values:", Values.run())
print("operands:", Values.operands())
print("contexts:", Contexts.run())
if CommandLine.arguments.contains("arguments") { print("arguments:", await Arguments.run()) }
