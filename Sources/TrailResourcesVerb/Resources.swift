import Foundation
import TrailCommandLine
import TrailResources

public let resourcesVerb = Verb(
    name: "resources",
    summary: ForwardedVerbs.resources.summary,
    usage: "--output FILE [--root DIR] FILE...   |   --xml --output FILE [--root DIR] XMLFILE",
    details: """
        Without --xml: every FILE (a folder stands for the files in it) becomes a constant in Resources.Images,
        Resources.Data or Resources.Other, named after its file name, and each XML file gets the enum its
        identifiers go in. With --xml: the values of the chosen attributes in XMLFILE become string constants
        in Resources.<Name>.<Extension>. FILE is rewritten only when its text changes. A clash, an XML file
        that does not parse or an unreadable file is reported as path:line:column: error: ..., with status 1.
        The TrailResources build plugin runs both. Naming rules: Docs/resources.md.
        """,
    options: [
        .value("--output", "-o", placeholder: "FILE", help: "Where the Swift source goes."),
        .value(
            "--root", placeholder: "DIR",
            help: "The target's folder: paths below it are named relative to it (default: the current folder)."),
        .flag("--xml", help: "Read one XML file's identifiers rather than the file list."),
        .value(
            "--attribute", placeholder: "NAME",
            help: "An attribute whose values become constants (repeatable; default: "
                + XMLIdentifiers.defaultAttributes.joined(separator: ", ") + ").", repeatable: true),
        .value(
            "--xml-extension", placeholder: "EXT",
            help: "Files with this extension are XML files (repeatable; default: "
                + ResourceGeneration.defaultXMLExtensions.sorted().joined(separator: ", ") + ").", repeatable: true),
        .value(
            "--undeclared", placeholder: "FILE",
            help: "A file under Resources/ that the manifest does not declare: an error (repeatable).",
            repeatable: true),
    ],
    run: { arguments in
        guard let output = arguments.value("output") else { throw UsageError(description: "--output FILE is required") }
        let root = arguments.value("root") ?? FileManager.default.currentDirectoryPath
        let source: String
        do {
            if arguments.has("xml") {
                guard arguments.positionals.count == 1 else {
                    throw UsageError(description: "--xml takes one XML file")
                }
                let attributes = arguments.all("attribute")
                source = try ResourceGeneration.xmlSource(
                    arguments.positionals[0], root: root,
                    attributes: attributes.isEmpty ? XMLIdentifiers.defaultAttributes : attributes)
            } else {
                let extensions = arguments.all("xml-extension")
                source = try ResourceGeneration.listSource(
                    arguments.positionals, root: root,
                    xmlExtensions: extensions.isEmpty ? ResourceGeneration.defaultXMLExtensions : Set(extensions),
                    undeclared: arguments.all("undeclared"))
            }
        } catch let errors as ResourceErrors {
            throw VerbFailure.input(errors.description)
        }
        do {
            try GeneratedFile.write(source, to: output)
        } catch {
            throw VerbFailure("cannot write \(output): \(error.localizedDescription)")
        }
        return 0
    })
