/// A name that the standard Synchronization module also gives Bool.
public protocol AtomicValue {
    associatedtype AtomicRepresentation
    static func describe() -> String
}

extension Bool: AtomicValue {
    public enum AtomicRepresentation { case word }
    public static func describe() -> String { "Bool is stored as \(Bool.AtomicRepresentation.word)" }
}

public func representation() -> String {
    let kind: Bool.AtomicRepresentation = .word
    return "\(kind) \(Bool.describe())"
}
