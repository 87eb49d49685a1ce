/**
 * Tracer `gasProfile` over real HTTP against a real Anvil: a solc-compiled contract deployed and
 * called on the node, its transactions traced by the service forking it (REST `/trace/tx`,
 * `/trace/call`, `/trace/call-many`, JSON-RPC `debug_traceTransaction` and `debug_traceCall`).
 *
 * What the profile's numbers are, checked against the node: `intrinsicGas` is the transaction's
 * intrinsic gas (21,000 plus 4 a zero and 16 a non-zero calldata byte, here), `executionGas` the
 * gas the top frame's execution spent before refunds — what Anvil's own struct log shows from its
 * first step to its last, and a creation's code deposit after it — and the receipt's `gasUsed` is `intrinsicGas + executionGas - refund`
 * (no refund: the sum; a cleared slot: EIP-3529's 4,800 less). The self gas of all functions sums
 * to `executionGas`, which is the top function's `totalGas`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { encodeFunctionData, hexToBytes, type Abi, type Address, type Hex } from 'viem'
import { DEV_ACCOUNTS, requireAnvil, startAnvil, type AnvilInstance } from '../support/anvil.js'
import { compileStandard, type StandardJsonPair } from '../support/solcStandard.js'
import { PROFILED_SOURCES } from '../engine/operations/trace/gasProfileFixture.js'
import { startForkApp, type ForkApp } from './forks/forkApp.js'

type Profile = {
  intrinsicGas: number
  executionGas: number
  functions: { contract: string; function: string; kind: string; calls: number; selfGas: number; totalGas: number }[]
  lines: { file: string; line: number; gas: number; hits: number }[]
  folded: string
}
type Receipt = { gasUsed: Hex; status: Hex; contractAddress: Address | null }
type StructLog = { gas: number; gasCost: number; depth: number }

const FROM = DEV_ACCOUNTS[0] as Address
let anvil: AnvilInstance
let app: ForkApp
let pair: StandardJsonPair
let profiled: Address
const abi = () => pair.output.contracts['src/Profiled.sol']!.Profiled.abi as Abi

async function send(data: Hex, to?: Address): Promise<{ hash: Hex; receipt: Receipt }> {
  const hash = await anvil.rpc<Hex>('eth_sendTransaction', [{ from: FROM, ...(to && { to }), data, gas: '0x989680' }])
  for (;;) {
    const receipt = await anvil.rpc<Receipt | null>('eth_getTransactionReceipt', [hash])
    if (receipt) return { hash, receipt }
    await new Promise((r) => setTimeout(r, 10))
  }
}

const call = (functionName: string, args: unknown[] = []) => encodeFunctionData({ abi: abi(), functionName, args })

function intrinsicOf(data: Hex, creation: boolean): number {
  const bytes = hexToBytes(data)
  const zeros = bytes.filter((b) => b === 0).length
  const base = 21_000 + zeros * 4 + (bytes.length - zeros) * 16
  // a creation: 32,000 more and EIP-3860's 2 a word of init code
  return creation ? base + 32_000 + 2 * Math.ceil(bytes.length / 32) : base
}

async function profileOf(hash: Hex): Promise<Profile> {
  const res = await app.request('POST', '/v1/trace/tx', { transactionHash: hash, tracerConfig: { gasProfile: true, callTracer: {} } })
  expect(res.status).toBe(200)
  expect(res.json.data.callTracer.type).toMatch(/CALL|CREATE/)
  return res.json.data.gasProfile as Profile
}

/** the gas Anvil's own struct log shows the top frame spending: its first step's gas less what its last left */
async function anvilExecutionGas(hash: Hex): Promise<number> {
  const { structLogs } = await anvil.rpc<{ structLogs: StructLog[] }>('debug_traceTransaction', [hash, { disableStack: true, disableStorage: true }])
  const last = structLogs[structLogs.length - 1]!
  expect(last.depth).toBe(1)
  return structLogs[0]!.gas - (last.gas - last.gasCost)
}

function checkSums(p: Profile) {
  expect(p.functions.reduce((s, f) => s + f.selfGas, 0)).toBe(p.executionGas)
  expect(Math.max(...p.functions.map((f) => f.totalGas))).toBe(p.executionGas)
  const folded = p.folded
    .trim()
    .split('\n')
    .reduce((s, l) => s + Number(l.slice(l.lastIndexOf(' ') + 1)), 0)
  expect(folded).toBe(p.executionGas)
}

describe.runIf(requireAnvil())('gasProfile against a real Anvil', () => {
  beforeAll(async () => {
    pair = compileStandard(PROFILED_SOURCES)
    anvil = await startAnvil()
    app = await startForkApp({ rpcUrl: anvil.url })
    const created = await send(`0x${pair.output.contracts['src/Profiled.sol']!.Profiled.evm.bytecode.object}`)
    profiled = created.receipt.contractAddress!
  }, 120_000)
  afterAll(async () => {
    await app?.close()
    await anvil?.stop()
  })

  it('a mined call: intrinsic gas apart, execution gas as Anvil ran it, receipt gas their sum; self gas summing to it', async () => {
    for (const data of [call('run', [8n]), call('loop', [30n])]) {
      const { hash, receipt } = await send(data, profiled)
      expect(receipt.status).toBe('0x1')
      const p = await profileOf(hash)
      checkSums(p)
      expect(p.intrinsicGas).toBe(intrinsicOf(data, false))
      expect(p.executionGas).toBe(await anvilExecutionGas(hash))
      expect(p.intrinsicGas + p.executionGas).toBe(Number(receipt.gasUsed))
      expect(p.functions[0]).toMatchObject({ contract: profiled, kind: 'external', totalGas: p.executionGas })
    }
  })

  it('a refund: the receipt is intrinsic plus execution gas less the refund (4,800 for a cleared slot)', async () => {
    await send(call('transfer', [FROM, 9n]), profiled)
    const { hash, receipt } = await send(call('clear', [1n]), profiled)
    const p = await profileOf(hash)
    checkSums(p)
    expect(p.executionGas).toBe(await anvilExecutionGas(hash))
    expect(p.intrinsicGas + p.executionGas - Number(receipt.gasUsed)).toBe(4_800)
  })

  it('a creation: the constructor, the contract it creates, the creation intrinsic gas', async () => {
    const initCode = `0x${pair.output.contracts['src/Profiled.sol']!.Profiled.evm.bytecode.object}` as Hex
    const { hash, receipt } = await send(initCode)
    const p = await profileOf(hash)
    checkSums(p)
    expect(p.intrinsicGas).toBe(intrinsicOf(initCode, true))
    // the code deposit (200 a byte of the code it leaves) is charged after the struct log's last step
    const code = await anvil.rpc<Hex>('eth_getCode', [receipt.contractAddress, 'latest'])
    expect(p.executionGas).toBe((await anvilExecutionGas(hash)) + 200 * hexToBytes(code).length)
    expect(p.intrinsicGas + p.executionGas).toBe(Number(receipt.gasUsed))
    expect(p.functions.map((f) => `${f.function}:${f.kind}`).sort()).toEqual(['constructor:constructor', 'constructor:constructor'])
    expect(p.functions.find((f) => f.contract === receipt.contractAddress)!.totalGas).toBe(p.executionGas)
  })

  it('with the build-info registered: contracts and internal functions by name, lines of the source', async () => {
    expect((await app.request('POST', '/v1/sources', { buildInfo: pair })).status).toBe(201)
    const { hash } = await send(call('run', [6n]), profiled)
    const p = await profileOf(hash)
    checkSums(p)
    expect(p.functions.find((f) => f.function === '_fib')).toMatchObject({ contract: 'Profiled', kind: 'internal', calls: 25 })
    expect(p.functions.find((f) => f.function === 'twice')).toMatchObject({ contract: 'Helper', kind: 'external', calls: 1 })
    expect(p.lines.length).toBeGreaterThan(3)
    expect(p.lines.every((l) => l.file === 'src/Profiled.sol')).toBe(true)
  })

  it('JSON-RPC debug_trace* with tracer gasProfile, alone and in a muxTracer, answer what REST does', async () => {
    const { hash } = await send(call('run', [5n]), profiled)
    const rest = await profileOf(hash)
    const rpc = async (method: string, params: unknown[]) => (await app.request('POST', '/v1/rpc', { jsonrpc: '2.0', id: 1, method, params })).json
    expect((await rpc('debug_traceTransaction', [hash, { tracer: 'gasProfile' }])).result).toEqual(rest)
    const mux = await rpc('debug_traceTransaction', [hash, { tracer: 'muxTracer', tracerConfig: { gasProfile: {}, callTracer: {} } }])
    expect(mux.result.gasProfile).toEqual(rest)
    expect(mux.result.callTracer.to).toBe(profiled.toLowerCase())
    const traced = await rpc('debug_traceCall', [{ from: FROM, to: profiled, data: call('run', [5n]) }, 'latest', { tracer: 'gasProfile' }])
    checkSums(traced.result)
    expect(traced.result.functions.map((f: { function: string }) => f.function)).toContain('_fib')
    const bad = await rpc('debug_traceTransaction', [hash, { tracer: 'gasProfile', tracerConfig: { lines: true } }])
    expect(bad.error.code).toBe(-32602)
  })

  it('REST /trace/call and /trace/call-many answer a profile per call; a bad value is a 400', async () => {
    const one = await app.request('POST', '/v1/trace/call', {
      call: { from: FROM, to: profiled, data: call('loop', [3n]) },
      tracerConfig: { gasProfile: true },
    })
    expect(one.status).toBe(200)
    expect(Object.keys(one.json.data)).toEqual(['gasProfile'])
    checkSums(one.json.data.gasProfile)
    const many = await app.request('POST', '/v1/trace/call-many', {
      bundles: [
        {
          transactions: [
            { from: FROM, to: profiled, data: call('loop', [2n]) },
            { from: FROM, to: profiled, data: call('fail') },
          ],
        },
      ],
      tracerConfig: { gasProfile: true, '4byteTracer': true },
    })
    expect(many.status).toBe(200)
    for (const r of many.json.data[0]) {
      checkSums(r.gasProfile)
      expect(r['4byteTracer'].totalIdentifiers).toBe(1)
    }
    const bad = await app.request('POST', '/v1/trace/call', { call: { from: FROM, to: profiled }, tracerConfig: { gasProfile: 'yes' } })
    expect(bad.status).toBe(400)
    expect(bad.json.error.code).toBe('VALIDATION_ERROR')
  })
})
