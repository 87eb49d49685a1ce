/**
 * `evm-sim simulate --to … --data …|--sig … args`: a call run by the engine in this process over
 * `--rpc-url` — its status, gas, decoded logs and asset changes (`--json`: the simulation's
 * JSON). Exit code 0 when it succeeded, 1 when it reverted, 2 for bad input or an unreachable node.
 */
import { ON_CHAIN } from '../../engine/types.js'
import { CALL_HELP, callCommand, openEngine } from './callOptions.js'
import { valueText } from './callTreeText.js'
import { engineMessage } from './engineMessage.js'
import { registerSourcesDir } from './sourcesDir.js'
import { CliError } from './usage.js'

const HELP = `evm-sim simulate --to <address> (--data <hex> | --sig <signature> args…) [options]

${CALL_HELP}

Exit code 0: success; 1: reverted; 2: bad input or the node unreachable.
`

const json = (v: unknown) => JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? x.toString() : x), 2)

export async function run(argv: string[]): Promise<number | undefined> {
  const cmd = callCommand(argv)
  if (cmd.help) {
    process.stdout.write(HELP)
    return 0
  }
  if (!cmd.call) throw new CliError('simulate runs a call: --to with --data or --sig (a mined transaction: evm-sim trace <hash>)')
  const engine = await openEngine(cmd.rpcUrl)
  try {
    if (cmd.sources) await registerSourcesDir(engine, cmd.sources)
    const result = await engine.simulate(ON_CHAIN, { calls: [cmd.call], block: cmd.block, validation: false, traceAssetChanges: true, traceTransfers: false })
    if (cmd.json) process.stdout.write(`${json(result)}\n`)
    else process.stdout.write(simulationText(result))
    return result.status === 'success' ? 0 : 1
  } catch (e) {
    throw e instanceof CliError ? e : new CliError(engineMessage(e))
  } finally {
    await engine.close().catch(() => undefined)
  }
}

type Simulation = Awaited<ReturnType<Awaited<ReturnType<typeof openEngine>>['simulate']>>

function simulationText(r: Simulation): string {
  const call = r.calls[0]!
  const lines = [`Status:   ${r.status}`, `Gas used: ${BigInt(r.gasUsed)}`, `Block:    ${BigInt(r.blockNumber)}`]
  if (call.error) lines.push(`Error:    ${call.error.revertReason ?? call.error.message}`)
  if (call.returnData !== '0x') lines.push(`Returned: ${call.returnData}`)
  if (call.logs.length) {
    lines.push('', 'Logs:')
    for (const log of call.logs) {
      const d = log.decoded
      lines.push(
        `  ${log.address} ${
          d
            ? (d.summary ??
              `${d.name}(${Object.values(d.args ?? {})
                .map(valueText)
                .join(', ')})`)
            : `topics ${log.topics.join(', ')}`
        }`,
      )
    }
  }
  if (r.assetChanges?.length) {
    lines.push('', 'Asset changes:')
    for (const a of r.assetChanges) lines.push(`  ${a.account} ${a.formatted ?? a.delta} ${a.symbol ?? (a.type === 'native' ? 'ETH' : (a.token ?? ''))}`)
  }
  return `${lines.join('\n')}\n`
}
