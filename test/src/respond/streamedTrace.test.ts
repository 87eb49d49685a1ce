/**
 * Struct logs spilled to a temporary file and streamed (engine/platform/spill, src/respond/jsonAnswer.ts)
 * answer the same bytes as the same traces built in memory, through both front doors (REST and
 * JSON-RPC), over the worker pool; failures leave no file behind and answer an ordinary error.
 *
 * Two apps on the devnet: one over an in-process engine that keeps struct logs in memory, one
 * over a 2-worker pool that spills every struct log (threshold 0), and one in-process spilling
 * engine with a small step cap for the failure paths.
 */
import { closeSync, readdirSync, readFileSync, readlinkSync } from 'node:fs'
import { join } from 'node:path'
import { encodeFunctionData, parseAbi, type Address, type Hex } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMemoryCacheStore } from '../../../host/cache/memoryCacheStore.js'
import { createEngine } from '../../../engine/index.js'
import { SPILL_KEY, spillRoot } from '../../../engine/platform/spill/spillFiles.js'
import { claimSpilled } from '../../../host/spill/spillOwnership.js'
import type { Engine } from '../../../engine/types.js'
import { createWorkerPoolEngine } from '../../../host/workers/index.js'
import { spareReadBuffers } from '../../../src/respond/readBuffers.js'
import { compile } from '../../support/solc.js'
import { post, startTestApp, type TestApp } from '../support/startTestApp.js'
import { ON_CHAIN } from '../../../engine/types.js'

const TOKEN = '0x5fbdb2315678afecb367f032d93f642f64180aa3' as Address
const [A0, A1, A2] = [
  '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266',
  '0x70997970c51812dc3a010c7d01b50e0d17dc79c8',
  '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc',
] as Address[]
const BLOCK4_TX1 = '0xdfc2c5c9fea5f9d7bc4ed8a0e7300b5da54dd6a339a5fca1bb6b195fc3efbc01' as Hex
const RELAY = '0x00000000000000000000000000000000000a11ce' as Address
const LOOPER = '0x0000000000000000000000000000000000001000' as Address
/** PUSH1 0 PUSH1 0x40 MSTORE; PUSH3 n; JUMPDEST; DUP1 PUSH1 0 MSTORE; PUSH1 1 SWAP1 SUB; DUP1 PUSH1 9 JUMPI; STOP: 10 steps per turn, 3 words of memory */
const loopCode = (turns: number) => `0x600060405262${turns.toString(16).padStart(6, '0')}5b80600052600190038060095700` as Hex
const erc20 = parseAbi(['function balanceOf(address) view returns (uint256)', 'function transfer(address,uint256) returns (bool)'])
const transfer = (to: Address, n: bigint) => encodeFunctionData({ abi: erc20, functionName: 'transfer', args: [to, n] })

/** a contract that calls another with the data given: nested frames, memory growth, a revert bubbling up */
const RELAY_SOURCE = `
// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
contract Relay {
  uint256 public calls;
  function relay(address to, bytes calldata data) external returns (bytes memory) {
    calls += 1;
    (bool ok, bytes memory out) = to.call(data);
    require(ok, "relayed call failed");
    return out;
  }
}`

const compiled = compile({ 'Relay.sol': RELAY_SOURCE }).Relay!
const relayCode = compiled.deployedBytecode
const relayAbi = compiled.abi
const relay = (to: Address, data: Hex) => encodeFunctionData({ abi: relayAbi, functionName: 'relay', args: [to, data] })

let inMemory: Engine
let spilling: Engine
let capped: Engine
let plainApp: TestApp
let streamApp: TestApp
let cappedApp: TestApp

const engineBase = { gasCap: 50_000_000n, rpcTimeoutMs: 10_000, simulationTtlSeconds: 600 }

/** the .json files under this process's spill root (none may outlive its request) */
function spillFiles(): string[] {
  const root = spillRoot()
  let owners: string[] = []
  try {
    owners = readdirSync(root)
  } catch {
    return []
  }
  return owners.flatMap((o) => {
    try {
      return readdirSync(join(root, o)).map((f) => join(o, f))
    } catch {
      return []
    }
  })
}

/** descriptors this process holds on spill files (deleted ones included) */
function openSpillFds(): string[] {
  const out: string[] = []
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`)
      if (target.includes('evm-sim-spill-')) out.push(target)
    } catch {
      // closed meanwhile
    }
  }
  return out
}

async function until(check: () => boolean, ms = 10_000): Promise<boolean> {
  const end = Date.now() + ms
  while (Date.now() < end) {
    if (check()) return true
    await new Promise((r) => setTimeout(r, 50))
  }
  return check()
}

beforeAll(async () => {
  inMemory = await createEngine({ ...engineBase, cache: createMemoryCacheStore(), maxStructLogSteps: 1_000_000 })
  const cache = createMemoryCacheStore()
  spilling = await createWorkerPoolEngine({
    ...engineBase,
    cache,
    cacheUrl: 'memory://',
    workers: 2,
    maxStructLogSteps: 1_000_000,
    spill: { thresholdBytes: 0, maxBytes: 2 ** 30 },
  })
  capped = await createEngine({ ...engineBase, cache: createMemoryCacheStore(), maxStructLogSteps: 500, spill: { thresholdBytes: 0, maxBytes: 2 ** 30 } })
  const env = { RPC_URL: '', RATE_LIMIT_REQUESTS: '100000' }
  plainApp = await startTestApp({ engine: inMemory, env })
  streamApp = await startTestApp({ engine: spilling, cache, env })
  cappedApp = await startTestApp({ engine: capped, env: { ...env, REQUEST_TIMEOUT_MS: '2000' } })
}, 180_000)

afterAll(async () => {
  await Promise.all([plainApp?.close(), streamApp?.close(), cappedApp?.close()])
  await Promise.all([inMemory?.close(), spilling?.close(), capped?.close()])
})

const overrides = () => ({ [RELAY]: { code: relayCode } })

/** REST bodies: memory growth and storage, a revert, nested calls (one reverting inside), tracers combined, a mined tx, bundles */
const restCases = (): [string, string, unknown][] => [
  ['transfer, default struct log', '/v1/trace/call', { call: { from: A0, to: TOKEN, data: transfer(A1, 5n) }, tracerConfig: { structLogger: {} } }],
  [
    'transfer past the balance (revert)',
    '/v1/trace/call',
    { call: { from: A2, to: TOKEN, data: transfer(A1, 10n ** 30n) }, tracerConfig: { structLogger: {} } },
  ],
  [
    'nested call through a relay',
    '/v1/trace/call',
    {
      call: { from: A0, to: RELAY, data: relay(TOKEN, encodeFunctionData({ abi: erc20, functionName: 'balanceOf', args: [A0] })) },
      stateOverrides: overrides(),
      tracerConfig: { structLogger: {} },
    },
  ],
  [
    'nested call reverting inside',
    '/v1/trace/call',
    {
      call: { from: A0, to: RELAY, data: relay(TOKEN, transfer(A1, 1n)) },
      stateOverrides: overrides(),
      tracerConfig: { structLogger: { enableReturnData: true }, callTracer: {} },
    },
  ],
  [
    'clean struct logs with a 4byte tracer',
    '/v1/trace/call',
    {
      call: { from: A0, to: RELAY, data: relay(TOKEN, transfer(A1, 1n)) },
      stateOverrides: overrides(),
      tracerConfig: { structLogger: { cleanStructLogs: true }, '4byteTracer': true },
    },
  ],
  ['a mined transaction', '/v1/trace/tx', { transactionHash: BLOCK4_TX1, tracerConfig: { structLogger: {} } }],
  [
    'bundles: two spilled logs in one answer',
    '/v1/trace/call-many',
    {
      bundles: [
        {
          transactions: [
            { from: A0, to: TOKEN, data: transfer(A1, 5n) },
            { from: A1, to: TOKEN, data: transfer(A2, 3n) },
          ],
        },
      ],
      tracerConfig: { structLogger: {} },
    },
  ],
]

const rpcCases = (): [string, unknown][] => [
  [
    'debug_traceCall with memory',
    {
      jsonrpc: '2.0',
      id: 1,
      method: 'debug_traceCall',
      params: [{ from: A0, to: RELAY, data: relay(TOKEN, transfer(A1, 1n)) }, 'latest', { enableMemory: true, stateOverrides: overrides() }],
    },
  ],
  [
    'debug_traceCall, geth defaults (no memory)',
    { jsonrpc: '2.0', id: 'x', method: 'debug_traceCall', params: [{ from: A0, to: TOKEN, data: transfer(A1, 5n) }, 'latest'] },
  ],
  ['debug_traceTransaction', { jsonrpc: '2.0', id: 2, method: 'debug_traceTransaction', params: [BLOCK4_TX1, { enableMemory: true, limit: 4000 }] }],
  [
    'a batch with two struct logs and an error between them',
    [
      { jsonrpc: '2.0', id: 3, method: 'debug_traceCall', params: [{ from: A2, to: TOKEN, data: transfer(A1, 10n ** 30n) }, 'latest', { enableMemory: true }] },
      { jsonrpc: '2.0', id: 4, method: 'debug_traceTransaction', params: [`0x${'11'.repeat(32)}`] },
      { jsonrpc: '2.0', id: 5, method: 'debug_traceBlockByNumber', params: ['0x4', { enableMemory: true }] },
    ],
  ],
]

describe('streamed struct logs', () => {
  it('the spilling engine answers handles to files, not arrays (the path these tests exercise)', async () => {
    const r = (await spilling.traceCall(ON_CHAIN, {
      call: { from: A0, to: TOKEN, data: transfer(A1, 5n) },
      block: { tag: 'latest' },
      tracerConfig: { structLogger: {} },
    })) as {
      structLogger: { structLogs: Record<string, string> }
    }
    expect(Object.keys(r.structLogger.structLogs)).toEqual([SPILL_KEY])
    // the file holds the logs' JSON array; taking it over unlinks it
    const claimed = claimSpilled(r.structLogger.structLogs[SPILL_KEY]!)!
    const text = readFileSync(claimed.fd, 'utf8')
    closeSync(claimed.fd)
    expect(text.startsWith('[{"pc":0,"op":"PUSH1"')).toBe(true)
    expect(text.endsWith(']')).toBe(true)
    expect(Buffer.byteLength(text)).toBe(claimed.bytes)
    // a streamed answer says its length up front
    const res = await streamApp.fetch('/v1/trace/call', post({ call: { from: A0, to: TOKEN, data: transfer(A1, 5n) }, tracerConfig: { structLogger: {} } }))
    expect(res.headers.get('content-length')).toBe(String((await res.arrayBuffer()).byteLength))
  })

  for (const [name, path, body] of restCases()) {
    it(`REST ${path}: ${name} — same bytes streamed as built in memory`, async () => {
      const [plain, streamed] = await Promise.all([plainApp.fetch(path, post(body)), streamApp.fetch(path, post(body))])
      const [a, b] = [await plain.text(), await streamed.text()]
      expect(plain.status).toBe(200)
      expect(streamed.status).toBe(200)
      expect(a).toContain('"structLogs":[{"pc":')
      expect(b).toBe(a)
      expect(streamed.headers.get('content-type')).toMatch(/^application\/json/)
    })
  }

  for (const [name, body] of rpcCases()) {
    it(`JSON-RPC: ${name} — same bytes streamed as built in memory`, async () => {
      const [plain, streamed] = await Promise.all([plainApp.fetch('/v1/rpc', post(body)), streamApp.fetch('/v1/rpc', post(body))])
      const [a, b] = [await plain.text(), await streamed.text()]
      expect(a).toContain('"structLogs":[{"pc":')
      expect(b).toBe(a)
    })
  }

  it('answers streamed at the same time, read into buffers used again from answer to answer, are each intact', async () => {
    // ~3.5 MB each (several read chunks), each a different length; one client leaves mid-body
    const body = (turns: number) => ({
      call: { from: A0, to: LOOPER, data: '0x' },
      stateOverrides: { [LOOPER]: { code: loopCode(turns) } },
      tracerConfig: { structLogger: {} },
    })
    const turns = [1000, 1010, 1020, 1030, 1040, 1050]
    const expected = await Promise.all(turns.map(async (t) => (await plainApp.fetch('/v1/trace/call', post(body(t)))).text()))
    for (let round = 0; round < 3; round++) {
      const ctl = new AbortController()
      const leaving = streamApp.fetch('/v1/trace/call', { ...post(body(1200)), signal: ctl.signal }).then(async (res) => {
        await res.body!.getReader().read()
        ctl.abort()
      })
      const got = await Promise.all(turns.map(async (t) => (await streamApp.fetch('/v1/trace/call', post(body(t)))).text()))
      await leaving.catch(() => undefined)
      for (let i = 0; i < turns.length; i++) {
        expect(got[i]!.length).toBe(expected[i]!.length)
        expect(got[i] === expected[i]).toBe(true)
      }
    }
    // the buffers of the answers sent went back for the next ones
    expect(spareReadBuffers()).toBeGreaterThan(0)
  })

  it('leaves no temporary file and no open descriptor once the answers are sent', async () => {
    expect(await until(() => spillFiles().length === 0 && openSpillFds().length === 0)).toBe(true)
  })

  it('frees the file of a JSON-RPC notification (never answered)', async () => {
    const res = await streamApp.fetch(
      '/v1/rpc',
      post({ jsonrpc: '2.0', method: 'debug_traceCall', params: [{ from: A0, to: TOKEN, data: transfer(A1, 5n) }, 'latest'] }),
    )
    expect(res.status).toBe(200)
    expect(await res.text()).toBe('')
    expect(await until(() => spillFiles().length === 0 && openSpillFds().length === 0)).toBe(true)
  })

  it('a client that goes away mid-body leaves no file and no descriptor', async () => {
    const body = { call: { from: A0, to: LOOPER, data: '0x' }, stateOverrides: { [LOOPER]: { code: loopCode(20_000) } }, tracerConfig: { structLogger: {} } }
    const ctl = new AbortController()
    const res = await streamApp.fetch('/v1/trace/call', { ...post(body), signal: ctl.signal })
    expect(res.status).toBe(200)
    expect(Number(res.headers.get('content-length'))).toBeGreaterThan(30_000_000)
    const reader = res.body!.getReader()
    await reader.read()
    ctl.abort()
    await reader.read().catch(() => undefined)
    expect(await until(() => spillFiles().length === 0 && openSpillFds().length === 0)).toBe(true)
  })
})

describe('a spilled trace that fails', () => {
  it('past the step cap: an ordinary 413 envelope (REST) and error object (JSON-RPC), no file left', async () => {
    const body = { call: { from: A0, to: LOOPER, data: '0x' }, stateOverrides: { [LOOPER]: { code: loopCode(1_000) } }, tracerConfig: { structLogger: {} } }
    const rest = await cappedApp.fetch('/v1/trace/call', post(body))
    expect(rest.status).toBe(413)
    expect(await rest.json()).toMatchObject({ success: false, error: { code: 'PAYLOAD_TOO_LARGE', details: { maxStructLogSteps: 500 } } })
    const rpc = await cappedApp.fetch(
      '/v1/rpc',
      post({
        jsonrpc: '2.0',
        id: 9,
        method: 'debug_traceCall',
        params: [{ from: A0, to: LOOPER, data: '0x' }, 'latest', { enableMemory: true, stateOverrides: { [LOOPER]: { code: loopCode(1_000) } } }],
      }),
    )
    const answer = await rpc.json()
    expect(answer.id).toBe(9)
    expect(answer.error.message).toMatch(/500 steps/)
    expect(answer.result).toBeUndefined()
    expect(spillFiles()).toEqual([])
  })

  it("past geth's trace timeout mid-run: an error answer, no file left", async () => {
    const res = await streamApp.fetch(
      '/v1/rpc',
      post({
        jsonrpc: '2.0',
        id: 10,
        method: 'debug_traceCall',
        params: [
          { from: A0, to: LOOPER, data: '0x' },
          'latest',
          { enableMemory: true, timeout: '300ms', stateOverrides: { [LOOPER]: { code: loopCode(400_000) } } },
        ],
      }),
    )
    const answer = await res.json()
    expect(answer.error.message).toMatch(/execution timeout/)
    expect(await until(() => spillFiles().length === 0)).toBe(true)
  })

  it("past the request timeout, its worker stopped mid-write: 504, the worker's files removed", async () => {
    // the pool's call timeout is the request timeout: the worker running the trace is terminated
    const cache = createMemoryCacheStore()
    const pool = await createWorkerPoolEngine({
      ...engineBase,
      cache,
      cacheUrl: 'memory://',
      workers: 2,
      maxStructLogSteps: 5_000_000,
      callTimeoutMs: 1_500,
      spill: { thresholdBytes: 0, maxBytes: 2 ** 31 },
    })
    const app = await startTestApp({ engine: pool, cache, env: { RPC_URL: '', REQUEST_TIMEOUT_MS: '1500' } })
    try {
      const body = {
        call: { from: A0, to: LOOPER, data: '0x' },
        stateOverrides: { [LOOPER]: { code: loopCode(1_000_000) } },
        tracerConfig: { structLogger: {} },
      }
      const answer = app.fetch('/v1/trace/call', post(body))
      // the worker writes its file while it runs
      expect(await until(() => spillFiles().length > 0, 1_400)).toBe(true)
      const res = await answer
      expect(res.status).toBe(504)
      expect(await res.json()).toMatchObject({ success: false, error: { code: 'EXECUTION_TIMEOUT' } })
      expect(await until(() => spillFiles().length === 0)).toBe(true)
    } finally {
      await app.close()
      await pool.close()
    }
  }, 60_000)
})
