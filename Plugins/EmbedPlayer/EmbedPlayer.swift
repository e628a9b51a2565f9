import Foundation
import PackagePlugin

/// Builds the web player's module (`Sources/LoopMedia/Web/loopprep-loop.js`, a JavaScript file that linters and
/// editors read as one) into LoopMedia as `PlayerAssets.module`: the text travels inside the binary, so a
/// `loopprep` copied alone still writes the player, and nothing is installed beside it.
@main struct EmbedPlayer: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        guard let module = target as? SourceModuleTarget else { return [] }
        let input = context.package.directoryURL.appending(path: "Sources/\(module.name)/Web/loopprep-loop.js")
        let output = context.pluginWorkDirectoryURL.appending(path: "PlayerModule.swift")
        return [
            .buildCommand(
                displayName: "Embedding loopprep-loop.js", executable: try context.tool(named: "embed-text").url,
                arguments: [input.path, output.path, "PlayerAssets", "module"], inputFiles: [input],
                outputFiles: [output])
        ]
    }
}
