/**
 * The CI flow of bench/forkFlow.ts (fund 3, deploy 2, 100 transfers, 20 swaps, reads, a trace)
 * through `evm-sim node --fork-url` with its start (the built command, dist/src/cli/main.js, as
 * the package runs it) against `anvil --fork-url` with its start, both forking one upstream behind
 * a proxy adding `delayMs` to every round trip; the time from spawning the node to its first
 * JSON-RPC answer (eth_chainId, answered while the engine loads: src/cli/nodeEarly.ts), and to
 * its first answer that needs the engine (eth_blockNumber). Goals: ≤ 0.4× Anvil's time, the first
 * answer within 1.5 s.
 * `npx tsx bench/nodeFlow.ts` runs this piece alone (after `npm run build`).
 *
 * @example
 * const r = await measureNodeFlow({ upstreamUrl: anvil.url, delayMs: 20 })
 */
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import type { Hex } from 'viem'
import { freePort, startAnvil } from '../test/support/anvil.js'
import { startCountingProxy } from '../test/support/countingProxy.js'
import { forkContracts } from '../test/src/forks/contracts.js'
import { flow, rpcAt } from './forkFlow.js'

export const NODE_FLOW_ROW =
  'CI flow through evm-sim node --fork-url, its start included (fund 3, deploy 2, 100 transfers, 20 swaps, reads, a trace; 20 ms a round trip)'

export interface NodeFlowResult {
  oursMs: number
  anvilMs: number
  /** from spawning the node to its first JSON-RPC answer */
  firstAnswerMs: number
  /** from spawning the node to its first answer that needs the engine */
  readyMs: number
}

const CLI = fileURLToPath(new URL('../dist/src/cli/main.js', import.meta.url))

/** spawns the node; resolves once the engine answers, with the times of the first answer and of that one */
async function startNode(upstream: string, block: Hex) {
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  const t0 = performance.now()
  const child = spawn(
    process.execPath,
    [CLI, 'node', '--fork-url', upstream, '--fork-block-number', String(BigInt(block)), '--port', String(port), '--silent'],
    {
      stdio: 'ignore',
    },
  )
  const answered = async (method: string) => {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`evm-sim node exited with ${child.exitCode}`)
      const ok = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: `{"jsonrpc":"2.0","id":1,"method":"${method}","params":[]}`,
      })
        .then((r) => r.ok)
        .catch(() => false)
      if (ok) return performance.now() - t0
      await new Promise((r) => setTimeout(r, 10))
    }
  }
  const firstAnswerMs = await answered('eth_chainId')
  const readyMs = await answered('eth_blockNumber')
  return {
    url,
    firstAnswerMs,
    readyMs,
    stop: () => new Promise<void>((resolve) => (child.exitCode !== null ? resolve() : (child.once('exit', () => resolve()), child.kill('SIGINT')))),
  }
}

export async function measureNodeFlow(opts: { upstreamUrl: string; delayMs: number }): Promise<NodeFlowResult> {
  const upstream = rpcAt(opts.upstreamUrl)
  const block = (await upstream.rpc('eth_blockNumber')) as Hex
  upstream.close()
  forkContracts()
  const proxy = await startCountingProxy(opts.upstreamUrl, { delayMs: opts.delayMs })
  try {
    const t0 = performance.now()
    const node = await startNode(proxy.url, block)
    let oursMs: number
    try {
      const ours = rpcAt(node.url)
      await flow(ours.rpc)
      oursMs = performance.now() - t0
      ours.close()
    } finally {
      await node.stop()
    }
    const t1 = performance.now()
    const anvil = await startAnvil({ args: ['--fork-url', proxy.url, '--fork-block-number', String(BigInt(block))] })
    try {
      const theirs = rpcAt(anvil.url)
      await flow(theirs.rpc)
      theirs.close()
    } finally {
      await anvil.stop()
    }
    return { oursMs, anvilMs: performance.now() - t1, firstAnswerMs: node.firstAnswerMs, readyMs: node.readyMs }
  } finally {
    await proxy.close()
  }
}

export function nodeFlowRows(r: NodeFlowResult): string[] {
  return [
    `\n| ${NODE_FLOW_ROW} | ours | Anvil (start included) | ours / Anvil |`,
    '|---|---|---|---|',
    `| whole flow, ms | ${r.oursMs.toFixed(0)} | ${r.anvilMs.toFixed(0)} | **${(r.oursMs / r.anvilMs).toFixed(2)}** (goal ≤ 0.4) |`,
    `| start to first JSON-RPC answer (eth_chainId), ms | ${r.firstAnswerMs.toFixed(0)} (goal ≤ 1500) | | |`,
    `| start to first answer of the engine (eth_blockNumber), ms | ${r.readyMs.toFixed(0)} | | |`,
  ]
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const anvil = await startAnvil()
  try {
    for (const line of nodeFlowRows(await measureNodeFlow({ upstreamUrl: anvil.url, delayMs: 20 }))) console.log(line)
  } finally {
    await anvil.stop()
  }
}
