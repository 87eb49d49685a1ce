/**
 * `evm-sim trace` against a node (a devnet fork of the service, as any JSON-RPC node): a mined
 * success exits 0, a mined revert exits 1 with the tree printed, bad input and an unreachable
 * node exit 2 with one line on stderr; the printed tree has the service's `callTree` of the same
 * hash frame for frame (gas, function, events, revert).
 */
import { execFile } from 'node:child_process'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../../config/loadConfig.js'
import type { CallTreeFrame } from '../../src/cli/callTreeTypes.js'
import { frameTitle, returnText } from '../../src/cli/callTreeText.js'
import { startDevnetApp, type DevnetApp } from '../src/support/devnetApp.js'

const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url))
const TSX = createRequire(import.meta.url).resolve('tsx')
const TOKEN = loadConfig({ env: { APP_ENV: 'test' } }).api.auth_token
const A0 = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'
const A5 = '0x9965507d1a55bcc2695c58ba16fb37d819b0a4dc'
const A6 = '0x976ea74026e726554db657fa54763abd0c3a0aa9'
const DEMO = '0x5fbdb2315678afecb367f032d93f642f64180aa3'
/** transfer(A0, 1e18) */
const TRANSFER = '0xa9059cbb000000000000000000000000f39fd6e51aad88f6f4ce6ab8827279cfffb922660000000000000000000000000000000000000000000000000de0b6b3a7640000'

function evmSim(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', TSX, MAIN, ...args], { timeout: 120_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }),
    )
  })
}

let app: DevnetApp
let forkId: string
let rpcUrl: string
const hashes: { ok?: string; reverted?: string } = {}

async function forkRpc(method: string, params: unknown[]): Promise<unknown> {
  const res = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  })
  return ((await res.json()) as { result: unknown }).result
}

async function serviceTree(hash: string): Promise<CallTreeFrame> {
  const { json } = await app.request(`/forks/${forkId}/trace/tx`, { transactionHash: hash, tracerConfig: { callTree: {} } })
  return json.data.callTree as CallTreeFrame
}

beforeAll(async () => {
  app = await startDevnetApp()
  const { json } = await app.request('/forks', {})
  forkId = json.data.forkId
  rpcUrl = `${json.data.rpcUrl}/${TOKEN}`
  // account 0 holds DEMO (and gives account 6 some), account 5 none: its transfer reverts, mined with the gas it is given
  await forkRpc('anvil_impersonateAccount', [A5])
  hashes.ok = (await forkRpc('eth_sendTransaction', [{ from: A0, to: DEMO, data: TRANSFER.replace(A0.slice(2), A6.slice(2)) }])) as string
  hashes.reverted = (await forkRpc('eth_sendTransaction', [{ from: A5, to: DEMO, data: TRANSFER, gas: '0x30000' }])) as string
}, 120_000)
afterAll(() => app?.close())

/** the printed tree's lines, one a frame, event or closing, without the tree's drawing */
const treeLines = (out: string) =>
  out
    .slice(out.indexOf('Traces:\n') + 8, out.indexOf('\n\n'))
    .split('\n')
    .map((l) => l.replace(/^[\s│├└─]+/, ''))

function expectedLines(f: CallTreeFrame): string[] {
  const lines = [frameTitle(f)]
  for (const log of f.logs ?? []) lines.push(`emit ${log.decoded!.name}(`)
  // the test's transactions run without sources: no internal frames among the calls
  for (const c of f.calls ?? []) if (c.type !== 'INTERNAL') lines.push(...expectedLines(c))
  lines.push(returnText(f))
  return lines
}

describe('evm-sim trace', () => {
  it('prints the tree of a mined success as the service decodes it, exit 0', async () => {
    const r = await evmSim(['trace', hashes.ok!, '--rpc-url', rpcUrl])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    const tree = await serviceTree(hashes.ok!)
    const printed = treeLines(r.stdout)
    const expected = expectedLines(tree)
    expect(printed).toHaveLength(expected.length)
    expected.forEach((line, i) => expect(printed[i]!.startsWith(line)).toBe(true))
    expect(printed[0]).toMatch(new RegExp(`^\\[${BigInt(tree.gasUsed)}\\] DEMO::transfer\\(`))
    expect(r.stdout).toContain(`Transaction successfully executed.\nGas used: ${BigInt(tree.gasUsed)}`)
    // not a terminal: no colour
    expect(r.stdout).not.toContain('\u001b[')
  }, 120_000)

  it('prints the tree of a mined revert with its reason, exit 1; --json is the service callTree', async () => {
    const r = await evmSim(['trace', hashes.reverted!, '--rpc-url', rpcUrl])
    expect(r.code).toBe(1)
    const tree = await serviceTree(hashes.reverted!)
    expect(tree.error).toBeDefined()
    expect(treeLines(r.stdout)).toEqual([frameTitle(tree), returnText(tree)])
    expect(r.stdout).toContain('← [Revert]')
    const json = await evmSim(['trace', hashes.reverted!, '--rpc-url', rpcUrl, '--json'])
    expect(json.code).toBe(1)
    expect(JSON.parse(json.stdout)).toEqual(tree)
  }, 120_000)

  it('exits 2 with one line for bad input and for an unreachable node', async () => {
    const bad = await evmSim(['trace', '0x1234', '--rpc-url', rpcUrl])
    expect(bad.code).toBe(2)
    expect(bad.stderr.trim().split('\n')).toHaveLength(1)
    const down = await evmSim(['trace', hashes.ok!, '--rpc-url', 'http://127.0.0.1:1'])
    expect(down.code).toBe(2)
    expect(down.stderr).toMatch(/^evm-sim: cannot reach http:\/\/127\.0\.0\.1:1: .+\n$/)
  }, 120_000)

  it('traces a call given by --sig and its arguments', async () => {
    const r = await evmSim(['trace', '--to', DEMO, '--from', A5, '--sig', 'transfer(address,uint256)', A0, '1', '--rpc-url', rpcUrl])
    expect(r.code).toBe(1)
    expect(r.stdout).toMatch(/DEMO::transfer\(0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266, 1\)/)
  }, 120_000)
})
