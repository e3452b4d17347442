import Foundation
import TrailCommandLine
import TrailDriver

let runVerb = Verb(
    name: "run",
    summary: ForwardedVerbs.run.summary,
    usage: "[--package DIR] [--product NAME] [-c debug|release] [-- arguments]",
    details: """
        Traces one executable product of a package with nothing to edit, as 'trail test' does its tests: the
        copy in .build/trail-shadow is brought up to date, instrumented and built, the product runs with
        TRAIL_TRACE=record (its arguments after --) into a fresh folder under .build/trail-shadow/traces, and
        'trail replay' shows its calls. With one executable product, --product may be left out. Your own
        TRAIL_* settings apply (TRAIL_TRACE and TRAIL_TRACE_FILE are trail run's); paths that name the copy are
        printed as your package's; Ctrl-C stops it at any step, and the next run repairs the copy.
        """,
    options: [
        .value("--package", placeholder: "DIR", help: "The package folder (default: the current folder)."),
        .flag("--values", help: "Also record each call's arguments and results (as 'trail instrument --values')."),
        .value("--product", placeholder: "NAME", help: "The executable product to run (default: the only one)."),
        .value(
            "-c", "--configuration", placeholder: "NAME",
            help: "Build the copy with configuration NAME (debug or release; default debug)."),
    ],
    run: { arguments in
        let configuration = try buildConfiguration(arguments.value("configuration"))
        let shadow = try ShadowRun.prepare(
            package: arguments.value("package") ?? ".", verb: "run", values: arguments.has("values"))
        let product = try arguments.value("product") ?? onlyExecutable(shadow)
        let built = try ShadowRun.build(shadow, ["--product", product, "--configuration", configuration])
        guard built == 0 else {
            throw VerbFailure("the traced build of \(product) failed (status \(built)); see above", status: built)
        }
        let folder = try ShadowRun.traceFolder(shadow)
        // The program keeps the terminal and this process group: it may read standard input.
        let status = try ShadowRun.run(
            [shadow.scratch + "/" + configuration + "/" + product] + arguments.positionals, shadow,
            environment: ShadowRun.recording(shadow), interactive: true)
        let traces = ShadowRun.traces(in: folder)
        printOut(
            "\n== trail run: \(product) ended with status \(status); \(traces.count) trace\(traces.count == 1 ? "" : "s"), "
                + "\(ShadowRun.size(traces.bytes)), in \(ShadowRun.relative(folder))\n")
        if traces.count > 0 {
            ShadowRun.show(
                ["replay", folder], lines: 60, more: "trail replay \(ShadowRun.relative(folder))",
                mapping: (shadow.copy, shadow.original))
        }
        return status
    })

/// The package's one executable product.
private func onlyExecutable(_ shadow: ShadowPackage) throws -> String {
    guard let executables = PackageDescription.executableProducts(shadow.copy, scratch: shadow.scratch) else {
        throw VerbFailure(
            "cannot describe \(shadow.copy) (swift package describe failed); name the product with --product")
    }
    guard executables.count == 1 else {
        throw UsageError(
            description: executables.isEmpty
                ? "the package has no executable product"
                : "the package has \(executables.count) executable products (\(executables.sorted().joined(separator: ", "))); choose one with --product"
        )
    }
    return executables[0]
}
