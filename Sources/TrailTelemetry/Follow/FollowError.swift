/// What stops a follower from starting or going on (an unreadable cursor, a cursor that cannot be saved).
public struct FollowError: Error, CustomStringConvertible {
    public var description: String

    public init(_ description: String) { self.description = description }
}
