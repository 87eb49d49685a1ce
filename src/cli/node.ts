/**
 * `evm-sim node`: a development node a test runner uses as it uses `anvil` — one writable fork of
 * `--fork-url` (or of the embedded devnet) as JSON-RPC at `/`, with the service's REST API, viewer
 * and explorer under `/v1` of the same port. The port is bound first and the engine loaded after
 * (src/cli/nodeStart.ts): a client's first question is answered while the engine's modules load
 * (src/cli/nodeEarly.ts), and the rest wait for it. Ctrl-C (SIGINT) or SIGTERM: the requests in
 * flight end, `--state` is dumped, exit 0.
 */
import { existsSync } from 'node:fs'
import { listenAhead } from '../../host/server.js'
import { earlyAnswers } from './nodeEarly.js'
import { NODE_HELP, nodeFlags } from './nodeFlags.js'
import { CliError } from './usage.js'

export async function run(argv: string[]): Promise<number | undefined> {
  const flags = nodeFlags(argv)
  if (flags === 'help') {
    process.stdout.write(NODE_HELP)
    return 0
  }
  const listening = await listenAhead(earlyAnswers(flags), { host: flags.host, port: flags.port }).catch((e: NodeJS.ErrnoException) => {
    throw new CliError(
      e.code === 'EADDRINUSE' ? `${flags.host}:${flags.port} is in use (--port)` : `cannot listen on ${flags.host}:${flags.port}: ${e.message}`,
    )
  })
  try {
    const { startNode } = await loadNodeStart()
    await startNode(flags, listening)
  } catch (e) {
    await listening.close(0)
    throw e
  }
  return undefined
}

/**
 * The engine and app of the node: from the build's one-file bundle of nodeStart when it is there
 * (scripts/bundle.mjs: one file loads in a fraction of the time Node takes for the hundreds it
 * holds), else from the modules themselves (a run from the TypeScript sources).
 */
async function loadNodeStart(): Promise<typeof import('./nodeStart.js')> {
  const bundle = new URL('../../bundle/nodeStart.js', import.meta.url)
  return existsSync(bundle) ? ((await import(bundle.href)) as typeof import('./nodeStart.js')) : import('./nodeStart.js')
}
