/**
 * `evm-sim trace <hash>` or `evm-sim trace --to … --data …|--sig … args`: the decoded call tree
 * of a mined transaction or of a call, run by the engine in this process over `--rpc-url`,
 * printed as `cast run` prints it (`--json`: the `callTree` JSON), with the contracts' names,
 * internal functions and errors of `--sources <dir>` (src/cli/sourcesDir.ts). Exit code 0 when the
 * transaction or call succeeded, 1 when it reverted, 2 for bad input or an unreachable node.
 */
import { ON_CHAIN } from '../../engine/types.js'
import { CALL_HELP, callCommand, openEngine } from './callOptions.js'
import { callTreeText } from './callTreeText.js'
import type { CallTreeFrame } from './callTreeTypes.js'
import { engineMessage } from './engineMessage.js'
import { registerSourcesDir } from './sourcesDir.js'
import { CliError } from './usage.js'

const HELP = `evm-sim trace <hash> | --to <address> (--data <hex> | --sig <signature> args…) [options]

${CALL_HELP}

Exit code 0: success; 1: reverted; 2: bad input or the node unreachable.
`

export async function run(argv: string[]): Promise<number | undefined> {
  const cmd = callCommand(argv)
  if (cmd.help) {
    process.stdout.write(HELP)
    return 0
  }
  const engine = await openEngine(cmd.rpcUrl)
  try {
    if (cmd.sources) await registerSourcesDir(engine, cmd.sources)
    // internal frames need the sources: asked for only with them
    const callTree = cmd.sources ? { internal: true } : {}
    const traced = cmd.hash
      ? await engine.traceTransaction(ON_CHAIN, cmd.hash, { callTree })
      : await engine.traceCall(ON_CHAIN, { call: cmd.call!, block: cmd.block, tracerConfig: { callTree } })
    const tree = traced.callTree as CallTreeFrame | undefined
    if (!tree) throw new CliError('the engine gave no call tree')
    if (cmd.json) process.stdout.write(`${JSON.stringify(tree, null, 2)}\n`)
    else {
      process.stdout.write(callTreeText(tree, process.stdout.isTTY === true))
      process.stdout.write(`\n${tree.error === undefined ? 'Transaction successfully executed.' : 'Transaction failed.'}\nGas used: ${BigInt(tree.gasUsed)}\n`)
    }
    return tree.error === undefined ? 0 : 1
  } catch (e) {
    throw e instanceof CliError ? e : new CliError(engineMessage(e))
  } finally {
    await engine.close().catch(() => undefined)
  }
}
