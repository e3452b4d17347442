// Bodies that are one value whose type comes from the written result type, as a `return` gives it: the exit
// operator is typed by it (`value ~>| Trail.TypedExit<R>()`), so each compiles traced and means what it meant,
// in the Swift 5 and Swift 6 language modes. Through an untyped generic operator, Swift 6 opened an existential
// metatype and erased it to `any Figure`, and closures lost their `@Sendable` or global actor.
import Foundation

protocol Figure: Decodable {
    static var name: String { get }
    init()
}
protocol Named {}
struct Square: Figure, Named {
    static var name: String { "square" }
}
final class Tree<Element> {
    let element: Element
    init(_ element: Element) { self.element = element }
}
class Layer {
    required init() {}
    static func make() -> Self { .init() }
    func itself() -> Self { self }
}
typealias FigureType = any Figure.Type
typealias Transform = @Sendable (Int) -> Int

func negate(_ value: Int) -> Int { -value }
@MainActor func onMain() -> Int { 3 }
func pick() -> Int { 1 }
func pick() -> Int? { 2 }
func lazily(_ value: @autoclosure () -> Int) -> Int { value() }

struct Contexts {
    let tree = Tree<Figure.Type>(Square.self)
    let figure: any Figure = Square()
    let pair = (1, 2)

    // Existentials and their metatypes.
    var root: Figure.Type { tree.element }
    func metatype() -> any Figure.Type { type(of: figure) }
    func composed() -> any (Figure & Named).Type { Square.self }
    func aliased() -> FigureType { tree.element }
    func optionalMetatype() -> (any Figure.Type)? { tree.element }
    func metatypes() -> [any Figure.Type] { [tree.element] }
    func anyType() -> Any.Type { type(of: figure) }
    func anyClass() -> AnyClass { Tree<Int>.self }
    func protocolType() -> (any Figure).Type { (any Figure).self }
    func existential() -> any Figure { figure }
    func made() -> any Figure { tree.element.init() }

    // Closures and function values take `@Sendable`, a global actor, `throws` and labels from the result type.
    func sendable() -> @Sendable (Int) -> Int { { $0 * 2 } }
    func aliasedClosure() -> Transform { { $0 + 1 } }
    func isolated() -> @MainActor () -> Int { { onMain() } }
    func function() -> (Int) -> Int { negate }
    func initializer() -> (Int) -> Tree<Int> { Tree.init }
    func throwing() -> (Int) throws -> Int { negate }
    func keyPath() -> (Tree<Int>) -> Int { \.element }

    // Literals, members, tuples and optionals, typed by the result type; overloads chosen by it.
    func labeled() -> ((low: Int, high: Int), Int) { ((1, 2), 3) }
    func labelsAdded() -> (low: Int, high: Int) { pair }
    func nested() -> Int?? { nil }
    func promoted() -> Double? { 1 }
    func member() -> Direction? { .south }
    func scaled() -> CGFloat { Double(2) }
    func picked() -> Int? { pick() }
    func forwarded(_ value: @autoclosure () -> Int) -> Int { lazily(value()) }
    func read(_ value: inout Int) -> Int { value }

    // Written as `Trail.Exit()`: no generic argument can name these, and an operator's argument does not
    // convert to `AnyHashable`.
    func opaque() -> some Equatable { 1 }
    func hashable() -> AnyHashable { 1 }
    func unwrapped() -> Int! { 4 }

    @MainActor static func run() -> String {
        let contexts = Contexts()
        var value = 9
        let parts: [String] = [
            contexts.root.name, contexts.metatype().name, "\(contexts.composed())", contexts.aliased().name,
            contexts.optionalMetatype()?.name ?? "-", "\(contexts.metatypes().count)", "\(contexts.anyType())",
            "\(contexts.anyClass())", "\(contexts.protocolType())", "\(type(of: contexts.existential()))",
            "\(type(of: contexts.made()))", "\(contexts.sendable()(2))", "\(contexts.aliasedClosure()(2))",
            "\(contexts.isolated()())", "\(contexts.function()(2))", "\(contexts.initializer()(5).element)",
            "\((try? contexts.throwing()(1)) ?? 0)", "\(contexts.keyPath()(Tree(7)))", "\(contexts.labeled().0.high)",
            "\(contexts.labelsAdded().low)", String(describing: contexts.nested()), "\(contexts.promoted() ?? 0)",
            "\(contexts.member().map { "\($0)" } ?? "-")", "\(contexts.scaled())", "\(contexts.picked() ?? 0)",
            "\(contexts.forwarded(8))", "\(contexts.read(&value))", "\(contexts.opaque() == contexts.opaque())",
            "\(contexts.hashable())", "\(contexts.unwrapped() + 1)", "\(type(of: Layer.make().itself()))",
        ]
        return parts.joined(separator: " ")
    }
}
