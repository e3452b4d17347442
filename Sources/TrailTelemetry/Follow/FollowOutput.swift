/// Where a follower sends and what it says: the requests' sink (an OTLP/HTTP receiver, a file, stdout), items per
/// request, the sink's name for messages, and where messages go (the verb's standard error; a test's list).
public struct FollowOutput {
    public let sink: any RequestSink
    public let batch: Int
    public let name: String
    public let say: (String) -> Void

    public init(sink: any RequestSink, batch: Int, name: String, say: @escaping (String) -> Void) {
        self.sink = sink
        self.batch = batch
        self.name = name
        self.say = say
    }
}
