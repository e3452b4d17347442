import CCounter
import Untraced

func report(_ count: Int32) -> String {
    "count \(count)"
}

print(Greeter(name: "mix").greet())
print(report(counter_next()), report(counter_next()))
print(relay(shout, "done"))
print("where:", #fileID, #line)
