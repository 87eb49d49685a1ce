/**
 * A development node's engine and app, on the port src/cli/node.ts already listens on: the
 * service's own instance (host/instance.ts) and app (src/app.ts) over one writable fork, then
 * Anvil's start-up lines. Everything heavy the node loads comes in through this module.
 */
import { loadConfig } from '../../config/loadConfig.js'
import { packageVersion } from '../../config/projectRoot.js'
import { runInstance } from '../../host/instance.js'
import type { ListeningAhead } from '../../host/server.js'
import { createApp } from '../app.js'
import { createLogger } from '../logger.js'
import { banner } from './nodeBanner.js'
import { nodeAccounts } from './nodeAccounts.js'
import { nodeEnv, type NodeFlags } from './nodeFlags.js'
import { nodeFront, startNodeFork, type NodeFork } from './nodeFork.js'

// the interpreter the node runs, checked in an install of the package (test/package/patchedProbe.mjs)
export { interpreterHooks } from '../../engine/index.js'

export async function startNode(flags: NodeFlags, listening: ListeningAhead): Promise<void> {
  const accounts = nodeAccounts(flags.mnemonic, flags.accounts)
  const config = loadConfig({ env: nodeEnv(flags) })
  const logger = createLogger({ level: config.log.level, secrets: [config.chain.rpc_url, config.api.auth_token] })
  let fork: Promise<NodeFork> | undefined
  const running = await runInstance({
    config,
    logger,
    app: (parts) => {
      const app = createApp({ config, ...parts })
      fork = startNodeFork(parts.engine, app, flags, accounts)
      // a failed start is told by the await below, not as an unhandled rejection meanwhile
      fork.catch(() => undefined)
      return nodeFront(app, fork)
    },
    ...(flags.state && { beforeClose: async () => (await fork)?.dumpState(flags.state!) }),
    listening,
  })
  const made = await fork!
  if (!flags.silent) {
    const head = BigInt(made.info.headBlockNumber)
    const block = flags.forkUrl ? ((await made.rpc('eth_getBlockByNumber', [made.info.forkBlockNumber, false])) as { hash: `0x${string}` }) : undefined
    process.stdout.write(
      banner({
        version: packageVersion(),
        accounts,
        balanceWei: flags.balance * 10n ** 18n,
        mnemonic: flags.mnemonic,
        chainId: made.info.chainId,
        ...(flags.forkUrl && block ? { fork: { endpoint: flags.forkUrl, blockNumber: head, blockHash: block.hash } } : { devnetHead: head }),
        listening: `${flags.host}:${running!.port}`,
      }),
    )
  }
}
