/**
 * The CI-shaped flow on a writable fork against the same flow on a fresh Anvil fork of the same
 * upstream (both behind a proxy adding `delayMs` to every upstream round trip): create the fork at
 * a block, fund three accounts, deploy a token and a router, 100 transfers and 20 swaps, read the
 * balances, trace the last transaction. Anvil's time includes its start (`--fork-url`); ours
 * includes POST /v1/forks. Also counted: the upstream round trips of creating our fork (goal ≤ 1).
 *
 * @example
 * const r = await measureForkFlow({ serviceUrl, token, upstreamUrl: anvil.url, delayMs: 20 })
 */
import { encodeDeployData, encodeFunctionData, type Abi, type Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { startAnvil } from '../test/support/anvil.js'
import { startCountingProxy } from '../test/support/countingProxy.js'
import { forkContracts } from '../test/src/forks/contracts.js'
import { createLoadClient } from './loadClient.js'

const accounts = [
  privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d'),
  privateKeyToAccount('0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a'),
  privateKeyToAccount('0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6'),
]

/** the bench's row; `BENCH_ONLY='CI flow' npm run bench` runs this flow alone */
export const FORK_FLOW_ROW = 'CI flow on a fork (create, fund 3, deploy 2, 100 transfers, 20 swaps, reads, a trace; 20 ms a round trip)'

export interface ForkFlowResult {
  oursMs: number
  anvilMs: number
  /** upstream requests while our fork was created */
  createRoundTrips: number
}

type Rpc = (method: string, params?: unknown[]) => Promise<unknown>

/**
 * The flow's JSON-RPC client, the same for both nodes: the bench's kept-alive node:http client
 * (loadClient.ts), not fetch, whose CPU per request (about 3 ms here, against 1 ms for this one)
 * would otherwise be a large part of both flows' time on a 2-core machine, and would take a core
 * from the node it measures.
 */
export function rpcAt(url: string): { rpc: Rpc; close(): void } {
  const client = createLoadClient(url, 1)
  return { rpc: (method, params = []) => client.rpc(method, params), close: () => client.close() }
}

/** the flow on one node; resolves when the last trace is in */
export async function flow(rpc: Rpc): Promise<void> {
  const { Token, Router } = forkContracts()
  const chainId = Number(await rpc('eth_chainId'))
  const nonces = new Map<string, number>()
  for (const a of accounts) await rpc('anvil_setBalance', [a.address, '0x3635c9adc5dea00000'])
  for (const a of accounts) nonces.set(a.address, Number(await rpc('eth_getTransactionCount', [a.address, 'latest'])))
  const send = async (who: number, to: Hex | null, data: Hex): Promise<Hex> => {
    const a = accounts[who]!
    const nonce = nonces.get(a.address)!
    nonces.set(a.address, nonce + 1)
    const raw = await a.signTransaction({
      chainId,
      type: 'eip1559',
      nonce,
      ...(to && { to }),
      data,
      gas: 3_000_000n,
      maxFeePerGas: 10n ** 11n,
      maxPriorityFeePerGas: 10n ** 9n,
    })
    const hash = (await rpc('eth_sendRawTransaction', [raw])) as Hex
    for (;;) {
      const r = (await rpc('eth_getTransactionReceipt', [hash])) as { contractAddress?: Hex } | null
      if (r) return (r.contractAddress ?? hash) as Hex
    }
  }
  const call = (abi: Abi, functionName: string, args: unknown[]) => encodeFunctionData({ abi, functionName, args } as never)
  const token = await send(0, null, encodeDeployData({ abi: Token.abi, bytecode: Token.bytecode, args: [10n ** 24n] }))
  const router = await send(0, null, encodeDeployData({ abi: Router.abi, bytecode: Router.bytecode, args: [token] }))
  await send(0, token, call(Token.abi, 'transfer', [router, 10n ** 22n]))
  await send(0, token, call(Token.abi, 'transfer', [accounts[1]!.address, 10n ** 21n]))
  await send(1, token, call(Token.abi, 'approve', [router, 10n ** 21n]))
  for (let i = 0; i < 100; i++) await send(0, token, call(Token.abi, 'transfer', [accounts[2]!.address, BigInt(i + 1)]))
  let last: Hex = '0x'
  for (let i = 0; i < 20; i++) last = await send(1, router, call(Router.abi, 'swap', [1000n, 990n]))
  for (const a of accounts) await rpc('eth_call', [{ to: token, data: call(Token.abi, 'balanceOf', [a.address]) }, 'latest'])
  await rpc('debug_traceTransaction', [last, { tracer: 'callTracer' }])
}

export interface ForkFlowOptions {
  upstreamUrl: string
  /** added to every upstream round trip, ms (20 in the bench) */
  delayMs: number
  token: string
  /** starts the service on an upstream URL (the bench's own start) */
  startService(rpcUrl: string): Promise<{ url: string; stop(): Promise<void> }>
}

export async function measureForkFlow(opts: ForkFlowOptions): Promise<ForkFlowResult> {
  const upstream = rpcAt(opts.upstreamUrl)
  const block = (await upstream.rpc('eth_blockNumber')) as Hex
  upstream.close()
  // the client's compile is neither node's time: done here, not in the first timed flow
  forkContracts()
  const proxy = await startCountingProxy(opts.upstreamUrl, { delayMs: opts.delayMs })
  const total = () => Object.values(proxy.counts()).reduce((a, b) => a + b, 0)
  try {
    const svc = await opts.startService(proxy.url)
    let oursMs: number
    let createRoundTrips: number
    try {
      const before = total()
      const t0 = performance.now()
      const rest = createLoadClient(svc.url, 1)
      const { data } = await rest.post<{ data: { rpcUrl: string } }>('/v1/forks', JSON.stringify({ blockNumber: block }), {
        authorization: `Bearer ${opts.token}`,
      })
      rest.close()
      createRoundTrips = total() - before
      const ours = rpcAt(`${data.rpcUrl}/${opts.token}`)
      await flow(ours.rpc)
      oursMs = performance.now() - t0
      ours.close()
      if (process.env.FORK_FLOW_COUNTS) console.log('ours', proxy.requests(), JSON.stringify(proxy.counts()))
    } finally {
      await svc.stop()
    }
    // Anvil's time includes its start: a fresh fork per CI job
    const t1 = performance.now()
    const anvil = await startAnvil({ args: ['--fork-url', proxy.url, '--fork-block-number', String(BigInt(block))] })
    try {
      const before = proxy.counts()
      const theirs = rpcAt(anvil.url)
      await flow(theirs.rpc)
      theirs.close()
      if (process.env.FORK_FLOW_COUNTS) console.log('anvil', proxy.requests(), JSON.stringify(proxy.counts()), 'before', JSON.stringify(before))
    } finally {
      await anvil.stop()
    }
    return { oursMs, anvilMs: performance.now() - t1, createRoundTrips }
  } finally {
    await proxy.close()
  }
}
