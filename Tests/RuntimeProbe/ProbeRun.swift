import Foundation
import RuntimeProbeModes
@_spi(Testing) import Trail

/// One run of the probe: `trail-probe MODE DIRECTORY [ARGUMENTS...]`, with the configuration and logger every mode
/// starts from. A class, so that the threads and closures a mode starts can share it.
final class ProbeRun {
    let arguments: [String]
    let mode: ProbeMode
    /// The log folder (some modes use it for other files, or ignore it).
    let directory: String
    var configuration: Trail.Configuration
    /// Made before any bootstrap, as a program's global logger is: its level is the default one.
    let log = Logger(label: "probe")

    init(arguments: [String], mode: ProbeMode) {
        self.arguments = arguments
        self.mode = mode
        directory = arguments[2]
        configuration = Trail.Configuration(appName: "probe", directory: directory)
        configuration.destination = .file
    }

    /// The argument at `index` as a number, or `fallback` when it is missing or not one.
    func number(_ index: Int, _ fallback: Int) -> Int {
        arguments.count > index ? Int(arguments[index]) ?? fallback : fallback
    }

    /// The argument at `index` as one of a mode's choices, or `fallback` when it is missing. A word that is none
    /// of them ends the probe, as an unknown mode does.
    func choice<Choice: RawRepresentable<String> & CaseIterable>(_ index: Int, or fallback: Choice) -> Choice {
        guard arguments.count > index else { return fallback }
        guard let chosen = Choice(rawValue: arguments[index]) else {
            let choices = Choice.allCases.map(\.rawValue).joined(separator: ", ")
            FileHandle.standardError.write(Data("\(mode.rawValue): \(arguments[index]) is none of \(choices)\n".utf8))
            exit(2)
        }
        return chosen
    }
}
