/**
 * The one writable fork a development node is: created on the engine with the node's accounts as
 * its signers and its chain id, then set up as Anvil sets up its chain — each account's balance,
 * the state of `--state` loaded, mining by interval or by hand — through the fork's own JSON-RPC
 * methods (the same ones any client calls), answered by the app in this process.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { gunzipSync } from 'node:zlib'
import { numberToHex, parseEther, type Hex } from 'viem'
import { ON_CHAIN, type Engine, type ForkInfo } from '../../engine/types.js'
import type { ServedApp } from '../../host/server.js'
import type { NodeAccount } from './nodeAccounts.js'
import type { NodeFlags } from './nodeFlags.js'

/** a node's fork outlives any run: ten years without use */
const NODE_FORK_TTL_SECONDS = 10 * 365 * 86_400

export interface NodeFork {
  info: ForkInfo
  /** the fork's JSON-RPC path, where `/` of the node leads */
  path: string
  /** one JSON-RPC call on the fork; a JSON-RPC error throws */
  rpc(method: string, params?: unknown[]): Promise<unknown>
  /** the state as Anvil's `--state` file holds it: the JSON of anvil_dumpState */
  dumpState(file: string): Promise<void>
}

export async function startNodeFork(engine: Engine, app: ServedApp, flags: NodeFlags, accounts: NodeAccount[]): Promise<NodeFork> {
  const info = await engine.createFork(ON_CHAIN, {
    ...(flags.forkBlockNumber !== undefined && { blockNumber: flags.forkBlockNumber }),
    ...(flags.chainId !== undefined && { chainId: flags.chainId }),
    signers: accounts,
    ttlSeconds: NODE_FORK_TTL_SECONDS,
    label: 'evm-sim node',
  })
  const path = `/v1/forks/${info.forkId}/rpc`
  const rpc = forkRpc(app, path, flags.authToken)
  const balance = numberToHex(parseEther(String(flags.balance)))
  await Promise.all(accounts.map((a) => rpc('anvil_setBalance', [a.address, balance])))
  // after the balances, as Anvil loads its state over its genesis: a saved account keeps what it had
  if (flags.state && existsSync(flags.state)) await rpc('anvil_loadState', [JSON.parse(readFileSync(flags.state, 'utf8'))])
  if (flags.noMining || flags.blockTime !== undefined) await rpc('evm_setAutomine', [false])
  if (flags.blockTime !== undefined) mineEvery(flags.blockTime, rpc)
  return {
    info,
    path,
    rpc,
    async dumpState(file) {
      // on the engine itself: at exit the app already refuses requests (it drains)
      const hex = (await engine.forkRpc({ fork: info.forkId }, { method: 'dumpState' })) as Hex
      const json = gunzipSync(Buffer.from(hex.slice(2), 'hex')).toString('utf8')
      // never a half-written state file: written aside, then renamed over
      writeFileSync(`${file}.tmp`, json)
      renameSync(`${file}.tmp`, file)
    },
  }
}

function forkRpc(app: ServedApp, path: string, token: string | undefined) {
  let id = 0
  return async (method: string, params: unknown[] = []): Promise<unknown> => {
    const headers: Record<string, string> = { 'content-type': 'application/json', ...(token && { authorization: `Bearer ${token}` }) }
    const req = new Request(`http://node${path}`, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }) })
    const answer = (await (await app.fetch(req, undefined as never)).json()) as { result?: unknown; error?: { message: string } }
    if (answer.error) throw new Error(`${method}: ${answer.error.message}`)
    return answer.result
  }
}

/** `--block-time`: a block every `seconds`, whether or not transactions wait, as Anvil mines */
function mineEvery(seconds: number, rpc: (method: string) => Promise<unknown>): void {
  let mining = false
  const timer = setInterval(() => {
    if (mining) return
    mining = true
    rpc('evm_mine')
      .catch(() => undefined)
      .finally(() => {
        mining = false
      })
  }, seconds * 1000)
  timer.unref()
}

/**
 * The node's HTTP front: JSON-RPC posted to `/` goes to the fork's endpoint (so `--fork-url
 * http://127.0.0.1:8545` reaches it), everything else to the app as it is (REST, viewer and
 * explorer under /v1). Requests arriving while the fork is being made wait for it.
 */
export function nodeFront(app: ServedApp, fork: Promise<NodeFork>): ServedApp {
  return {
    async fetch(req, env) {
      const url = new URL(req.url)
      if (url.pathname !== '/' || req.method !== 'POST') return app.fetch(req, env)
      const { path } = await fork
      const body = await req.arrayBuffer()
      return app.fetch(new Request(new URL(path, url), { method: 'POST', headers: req.headers, body }), env)
    },
  }
}
