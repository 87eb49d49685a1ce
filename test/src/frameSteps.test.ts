/**
 * Tracer `frameSteps` over real HTTP on the embedded devnet, the demo contracts' build-info
 * registered (POST /v1/sources): /v1/trace/tx pages the demo transfer beside its call tree, the
 * steps naming DemoToken.sol's lines and functions; /v1/trace/call runs a transfer that reverts
 * inside `_move` to its REVERT, placed as the call tree places it; /v1/trace/call-many answers a
 * page per call; JSON-RPC `debug_traceTransaction` answers the REST page; bad options are a 400
 * VALIDATION_ERROR naming the field (and -32602 on JSON-RPC).
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { encodeFunctionData } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { demoTokenAbi } from '../../engine/chains/devnet/demoTransactions.js'
import { startDevnetApp, type DevnetApp } from './support/devnetApp.js'

const DEMO_TOKEN = '0x5fbdb2315678afecb367f032d93f642f64180aa3'
const DEMO_TRANSFER_TX = '0x8849d23607d7c87b58414fda583340f2c2b6393f2461223972e42e81c7fda23b'
const ACCOUNT0 = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'
const ACCOUNT2 = '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc'

type Step = { step: number; op: string; source?: { file: string; line: number } | null; function?: string; storage: Record<string, string> }

let app: DevnetApp
let lines: string[]

const transfer = (value: bigint) => ({
  from: ACCOUNT0,
  to: DEMO_TOKEN,
  data: encodeFunctionData({ abi: demoTokenAbi, functionName: 'transfer', args: [ACCOUNT2, value] }),
})
const ask = (path: string, body: unknown) => app.request(path.replace(/^\/v1/, ''), body)
const textOf = (s: Step) => lines[s.source!.line - 1]!

beforeAll(async () => {
  app = await startDevnetApp()
  const buildInfo = JSON.parse(readFileSync(join(process.cwd(), 'scripts/demo-contracts/build-info.json'), 'utf8'))
  expect((await app.request('/sources', { buildInfo })).status).toBe(201)
  lines = readFileSync(join(process.cwd(), 'scripts/demo-contracts/DemoToken.sol'), 'utf8').split('\n')
}, 60_000)

afterAll(() => app?.close())

describe('frameSteps over HTTP', () => {
  it('/v1/trace/tx: the demo transfer a page at a time beside its call tree, with lines, functions and the files', async () => {
    const first = await ask('/v1/trace/tx', {
      transactionHash: DEMO_TRANSFER_TX,
      tracerConfig: { callTree: { internal: true }, frameSteps: { frame: [], maxSteps: 64, withFiles: true } },
    })
    expect(first.status).toBe(200)
    const page = first.json.data.frameSteps
    expect(first.json.data.callTree.contract).toBeDefined()
    expect(page.frame).toMatchObject({ path: [], type: 'CALL', address: DEMO_TOKEN, depth: 1, contract: { name: 'DemoToken' } })
    expect(page.steps).toHaveLength(64)
    expect(page.nextStep).toBe(64)
    expect(page.totalSteps).toBeGreaterThan(64)
    const file = page.files.find((f: { path: string }) => f.path === page.frame.contract.file)
    expect(file.content.split('\n')).toEqual(lines)
    // the rest, from nextStep: the SSTOREs of _move on their lines
    const rest = await ask('/v1/trace/tx', {
      transactionHash: DEMO_TRANSFER_TX,
      tracerConfig: { frameSteps: { frame: [], fromStep: page.nextStep, maxSteps: 4096 } },
    })
    expect(rest.status).toBe(200)
    expect(Object.keys(rest.json.data)).toEqual(['frameSteps'])
    const steps: Step[] = rest.json.data.frameSteps.steps
    expect(steps[0]!.step).toBe(64)
    expect(rest.json.data.frameSteps.nextStep).toBeNull()
    expect(64 + steps.length).toBe(page.totalSteps)
    const stores = steps.filter((s) => s.op === 'SSTORE')
    expect(stores.map(textOf).map((t) => t.trim())).toEqual(['balanceOf[from] = bal - value;', 'balanceOf[to] += value;'])
    expect(stores.every((s) => s.function === 'DemoToken._move')).toBe(true)
    expect(Object.keys(stores[1]!.storage)).toHaveLength(2)
  })

  it('/v1/trace/call: a transfer of more than the balance runs inside _move to its REVERT, placed as the call tree places the revert', async () => {
    const r = await ask('/v1/trace/call', { call: transfer(10n ** 40n), tracerConfig: { callTree: {}, frameSteps: { frame: [], maxSteps: 4096 } } })
    expect(r.status).toBe(200)
    const steps: Step[] = r.json.data.frameSteps.steps
    const last = steps[steps.length - 1]!
    expect(last.op).toBe('REVERT')
    expect(last.function).toBe('DemoToken._move')
    // the optimizer shares one REVERT among the contract's reverts: its place is the call tree's, whatever statement that names
    const { file, line, column } = r.json.data.callTree.source
    expect(last.source).toEqual({ file, line, column })
    // the steps that build the error are on the statement that reverts
    const failing = steps.filter((s) => s.source && textOf(s).includes('revert InsufficientBalance(from, bal, value)'))
    expect(failing.length).toBeGreaterThan(0)
    expect(failing.every((s) => s.function === 'DemoToken._move')).toBe(true)
    expect(steps.some((s) => s.function === 'DemoToken.transfer')).toBe(true)
  })

  it('/v1/trace/call-many: a page per call', async () => {
    const r = await ask('/v1/trace/call-many', {
      bundles: [{ transactions: [transfer(5n), transfer(10n ** 40n)] }],
      tracerConfig: { frameSteps: { frame: [], maxSteps: 8 } },
    })
    expect(r.status).toBe(200)
    const [ok, reverted] = r.json.data[0]
    expect(ok.frameSteps.steps).toHaveLength(8)
    expect(reverted.frameSteps.steps).toHaveLength(8)
    expect(reverted.frameSteps.totalSteps).not.toBe(ok.frameSteps.totalSteps)
  })

  it('JSON-RPC debug_traceTransaction with tracer frameSteps answers the REST page', async () => {
    const tracerConfig = { frame: [], fromStep: 10, maxSteps: 5 }
    const rpc = await ask('/v1/rpc', {
      jsonrpc: '2.0',
      id: 1,
      method: 'debug_traceTransaction',
      params: [DEMO_TRANSFER_TX, { tracer: 'frameSteps', tracerConfig }],
    })
    const rest = await ask('/v1/trace/tx', { transactionHash: DEMO_TRANSFER_TX, tracerConfig: { frameSteps: tracerConfig } })
    expect(rpc.json.result).toEqual(rest.json.data.frameSteps)
    const bad = await ask('/v1/rpc', {
      jsonrpc: '2.0',
      id: 1,
      method: 'debug_traceTransaction',
      params: [DEMO_TRANSFER_TX, { tracer: 'frameSteps', tracerConfig: { frame: [], maxSteps: 0 } }],
    })
    expect(bad.json.error.code).toBe(-32602)
    expect(bad.json.error.message).toContain('tracerConfig.maxSteps')
  })

  it('bad options: 400 VALIDATION_ERROR naming the field, before or after the run', async () => {
    const cases: [unknown, string][] = [
      [{ frame: [-1] }, 'tracerConfig.frameSteps.frame[0]'],
      [{ frame: [], maxSteps: 4097 }, 'tracerConfig.frameSteps.maxSteps'],
      [{ frame: [], fromStep: 1.5 }, 'tracerConfig.frameSteps.fromStep'],
      [{ frame: [], steps: 3 }, 'tracerConfig.frameSteps.steps'],
      [{ frame: [2] }, 'tracerConfig.frameSteps.frame'],
      [{ frame: [], fromStep: 1_000_000 }, 'tracerConfig.frameSteps.fromStep'],
    ]
    for (const [frameSteps, path] of cases) {
      const r = await ask('/v1/trace/tx', { transactionHash: DEMO_TRANSFER_TX, tracerConfig: { frameSteps } })
      expect(r.status, JSON.stringify(frameSteps)).toBe(400)
      expect(r.json.error.code).toBe('VALIDATION_ERROR')
      expect(r.json.error.details.issues.map((i: { path: string }) => i.path)).toContain(path)
    }
  })
})
