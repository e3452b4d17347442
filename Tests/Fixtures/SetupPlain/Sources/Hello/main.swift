import CDouble
import Greeting

func twice(_ value: Int32) -> Int32 { double_it(value) }

print(Greeting().text(for: "setup"), twice(21))
