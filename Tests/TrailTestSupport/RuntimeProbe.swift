// The modes are part of this module's interface: a test names the mode and the probe in one import.
@_exported import RuntimeProbeModes

/// The runtime probe (Tests/RuntimeProbe), the program the runtime tests run as a real process.
public enum RuntimeProbe {
    /// The probe's executable, built beside the test bundle.
    public static var path: String { Paths.buildDirectory + "/trail-probe" }

    /// The probe's command line after its path: `MODE DIRECTORY [ARGUMENTS...]`.
    public static func arguments(_ mode: ProbeMode, _ directory: String, _ rest: any ProbeArgument...) -> [String] {
        arguments(mode, directory, rest)
    }

    public static func arguments(_ mode: ProbeMode, _ directory: String, _ rest: [any ProbeArgument]) -> [String] {
        [mode.rawValue, directory] + rest.map(\.probeArgument)
    }
}

/// A value the probe takes after its mode and folder: a mode's choice, a number, or any word.
public protocol ProbeArgument {
    var probeArgument: String { get }
}

extension String: ProbeArgument {
    public var probeArgument: String { self }
}

extension Int: ProbeArgument {
    public var probeArgument: String { String(self) }
}

extension RawRepresentable where Self: ProbeArgument, RawValue == String {
    public var probeArgument: String { rawValue }
}

extension CrashMethod: ProbeArgument {}
extension TraceThenEnd: ProbeArgument {}
extension UnwritableTraceEnd: ProbeArgument {}
extension LastWordsSignal: ProbeArgument {}
extension FloodSource: ProbeArgument {}
extension VanishingPart: ProbeArgument {}
extension OutliveEnd: ProbeArgument {}
extension SoakEnd: ProbeArgument {}
extension FaultHandling: ProbeArgument {}
extension ConsoleDestination: ProbeArgument {}
