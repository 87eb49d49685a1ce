/**
 * eth_call, eth_estimateGas and eth_createAccessList through POST /v1/rpc on a fork of a real
 * Anvil, against Anvil's own answer to the same JSON-RPC request. Anvil's known deviations from
 * geth are undone first (anvilAsGeth below); where geth's answer is not Anvil's at all, ours is
 * checked against geth's rule directly.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Hex } from 'viem'
import { requireAnvil } from '../../support/anvil.js'
import { OTHER, SENDER, startProbeChain, type ProbeChain } from './anvilProbe.js'
import { startRpcApp, type RpcApp } from './rpcApp.js'

const hasAnvil = requireAnvil()
let chain: ProbeChain
let app: RpcApp

beforeAll(async () => {
  if (!hasAnvil) return
  chain = await startProbeChain()
  app = await startRpcApp({ rpcUrl: chain.anvil.url })
}, 120_000)
afterAll(async () => {
  await app?.close()
  await chain?.stop()
})

type Answer = { result?: unknown; error?: { code: number; message: string; data?: unknown } }

async function anvilAnswer(method: string, params: unknown[]): Promise<Answer> {
  const res = await fetch(chain.anvil.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  })
  const { result, error } = (await res.json()) as Answer
  return error ? { error } : { result }
}

async function ourAnswer(method: string, params: unknown[]): Promise<Answer> {
  const { status, json } = await app.rpc({ jsonrpc: '2.0', id: 1, method, params })
  expect(status).toBe(200)
  return json.error ? { error: json.error } : { result: json.result }
}

/**
 * Anvil → geth: geth's abi.UnpackRevert names a Panic by its text alone and leaves a custom error
 * unnamed; a revert without bytes is a plain -32000 `execution reverted` on geth (newRevertError
 * is used only when there are revert bytes).
 */
function anvilAsGeth(a: Answer): Answer {
  if (!a.error) return a
  const e = { ...a.error }
  e.message = e.message.replace(/^execution reverted: panic: (.*) \(0x[0-9a-f]+\)$/, 'execution reverted: $1')
  e.message = e.message.replace(/^execution reverted: custom error .*$/s, 'execution reverted')
  if (e.code === 3 && (e.data === '0x' || e.data === undefined)) return { error: { code: -32000, message: e.message } }
  return { error: e }
}

const same = async (method: string, params: unknown[]) => {
  const [ours, anvil] = await Promise.all([ourAnswer(method, params), anvilAnswer(method, params)])
  expect(ours).toEqual(anvilAsGeth(anvil))
  return ours
}

const slot0 = `0x${'0'.repeat(64)}`
const word = (n: number) => `0x${n.toString(16).padStart(64, '0')}`

describe.runIf(hasAnvil)('eth_call vs Anvil', () => {
  const to = () => chain.probe
  it('returns data, at tags and numbers', async () => {
    expect((await same('eth_call', [{ to: to(), data: chain.data('get') }, 'latest'])).result).toBe(word(11))
    await same('eth_call', [{ to: to(), data: chain.data('get') }])
    await same('eth_call', [{ to: to(), data: chain.data('value') }, '0x2'])
    await same('eth_call', [{ to: to(), data: chain.data('slots', [1n]) }, { blockNumber: '0x3' }])
    const block2 = (await anvilAnswer('eth_getBlockByNumber', ['0x2', false])).result as { hash: Hex }
    expect((await same('eth_call', [{ to: to(), data: chain.data('get') }, { blockHash: block2.hash }])).result).toBe(word(7))
    expect((await same('eth_call', [{ to: to(), data: chain.data('get') }, block2.hash])).result).toBe(word(7))
  })

  it('applies state overrides (3rd param): stateDiff, state, code, balance, nonce', async () => {
    expect((await same('eth_call', [{ to: to(), data: chain.data('get') }, 'latest', { [to()]: { stateDiff: { [slot0]: word(99) } } }])).result).toBe(word(99))
    await same('eth_call', [{ to: to(), data: chain.data('slots', [0n]) }, 'latest', { [to()]: { state: { [slot0]: word(5) } } }])
    await same('eth_call', [{ to: to(), data: chain.data('selfBalance') }, 'latest', { [to()]: { balance: '0x1234' } }])
    await same('eth_call', [{ to: OTHER, data: chain.data('get') }, 'latest', { [OTHER]: { code: chain.artifact.deployedBytecode } }])
  })

  it('applies block overrides (4th param)', async () => {
    const r = await same('eth_call', [
      { to: to(), data: chain.data('blockInfo'), gasPrice: '0x7' },
      'latest',
      null,
      { number: '0x99', time: '0x12345678', feeRecipient: OTHER, baseFeePerGas: '0x7' },
    ])
    expect(r.result).toContain('12345678')
  })

  it("applies block overrides under alloy's names (blockNumber, timestamp, coinbase, baseFee), as reth, cast and Anvil read them", async () => {
    const call = { to: to(), data: chain.data('blockInfo'), gasPrice: '0x7' }
    const alloy = await same('eth_call', [call, 'latest', null, { blockNumber: '0x99', timestamp: '0x12345678', coinbase: OTHER, baseFee: '0x7' }])
    const geth = await same('eth_call', [call, 'latest', null, { number: '0x99', time: '0x12345678', feeRecipient: OTHER, baseFeePerGas: '0x7' }])
    expect(alloy).toEqual(geth)
    expect(BigInt(`0x${(alloy.result as string).slice(-64)}`)).toBe(7n)
    // eth_estimateGas reads the same overrides (its figure is checked against geth's search elsewhere)
    expect(await ourAnswer('eth_estimateGas', [call, 'latest', null, { baseFee: '0x7' }])).toEqual(
      await ourAnswer('eth_estimateGas', [call, 'latest', null, { baseFeePerGas: '0x7' }]),
    )
  })

  it('refuses a field given under both names, -32602 as reth and Anvil do', async () => {
    const call = { to: to(), data: chain.data('blockInfo') }
    for (const overrides of [
      { baseFee: '0x7', baseFeePerGas: '0x8' },
      { coinbase: OTHER, feeRecipient: OTHER },
    ]) {
      const [ours, anvil] = await Promise.all([
        ourAnswer('eth_call', [call, 'latest', null, overrides]),
        anvilAnswer('eth_call', [call, 'latest', null, overrides]),
      ])
      // Anvil's words are serde's: duplicate field `baseFee`
      expect(anvil.error).toMatchObject({ code: -32602, message: expect.stringMatching(/^duplicate field/) })
      expect(ours.error).toMatchObject({ code: -32602, message: expect.stringMatching(/^invalid argument 3: \w+: \w+ is given twice$/) })
    }
  })

  it('reverts as geth: code 3, the reason, the bytes as data', async () => {
    const r = await same('eth_call', [{ to: to(), data: chain.data('failWith', ['nope']) }])
    expect(r.error).toMatchObject({ code: 3, message: 'execution reverted: nope' })
    expect((await same('eth_call', [{ to: to(), data: chain.data('divide', [1n, 0n]) }])).error!.message).toBe('execution reverted: division or modulo by zero')
    const custom = await same('eth_call', [{ from: OTHER, to: to(), data: chain.data('failCustom') }])
    expect(custom.error).toMatchObject({ code: 3, message: 'execution reverted' })
    expect(custom.error!.data as Hex).toMatch(/^0x2202f1fa/)
    expect((await same('eth_call', [{ to: to(), data: chain.data('failEmpty') }])).error).toEqual({ code: -32000, message: 'execution reverted' })
  })

  it('runs out of gas with the gas given', async () => {
    const ours = await ourAnswer('eth_call', [{ to: to(), data: chain.data('burn', [100_000n]), gas: '0x30000' }])
    expect(ours.error).toEqual({ code: -32000, message: 'out of gas' })
  })

  it('refuses a call the sender cannot pay for, in geth words', async () => {
    const ours = await ourAnswer('eth_call', [{ from: OTHER, to: to(), data: chain.data('pay'), value: '0xffffffffffffffffffffffffffff' }])
    // Anvil answers -32003 "Insufficient funds for gas * price + value"; geth names the numbers
    expect(ours.error).toEqual({
      code: -32000,
      message: `insufficient funds for gas * price + value: address ${OTHER} have 10000000000000000000000 want ${BigInt('0xffffffffffffffffffffffffffff')}`,
    })
  })
})

describe.runIf(hasAnvil)('eth_estimateGas vs Anvil', () => {
  /** geth stops its search within 1.5 %; Anvil searches to the exact minimum */
  async function estimate(call: Record<string, unknown>) {
    const [ours, anvil] = await Promise.all([ourAnswer('eth_estimateGas', [call]), anvilAnswer('eth_estimateGas', [call])])
    const mine = BigInt(ours.result as Hex)
    const exact = BigInt(anvil.result as Hex)
    expect(mine).toBeGreaterThanOrEqual(exact)
    expect(Number(mine - exact) / Number(mine)).toBeLessThan(0.015)
    // and the call really succeeds with our estimate on the node
    expect((await anvilAnswer('eth_call', [{ ...call, gas: ours.result }])).error).toBeUndefined()
    return mine
  }

  it("estimates writes, refunds, loops and stipends within geth's ratio of the exact minimum", async () => {
    const to = chain.probe
    await estimate({ from: SENDER, to, data: chain.data('set', [5n]) })
    await estimate({ from: SENDER, to, data: chain.data('fill', [5n]) })
    await estimate({ from: SENDER, to, data: chain.data('clear', [3n]) })
    await estimate({ from: SENDER, to, data: chain.data('forward', [OTHER]), value: '0x10' })
    await estimate({ from: SENDER, to, data: chain.data('burn', [300n]) })
  })

  it('answers 21000 for a plain transfer, as both do', async () => {
    expect(await estimate({ from: SENDER, to: OTHER, value: '0x1' })).toBe(21000n)
  })

  it('answers a revert as eth_call does', async () => {
    await same('eth_estimateGas', [{ from: SENDER, to: chain.probe, data: chain.data('failWith', ['nope']) }])
    await same('eth_estimateGas', [{ from: SENDER, to: chain.probe, data: chain.data('failEmpty') }])
    await same('eth_estimateGas', [{ from: SENDER, to: chain.probe, value: '0x1' }])
  })

  it("answers geth's allowance error when no gas within the cap is enough", async () => {
    const ours = await ourAnswer('eth_estimateGas', [{ from: SENDER, to: chain.probe, data: chain.data('burn', [100_000n]), gas: '0x30000' }])
    expect(ours.error).toEqual({ code: -32000, message: 'gas required exceeds allowance (196608)' })
  })

  it('applies state overrides', async () => {
    const call = { from: SENDER, to: chain.probe, data: chain.data('clear', [1n]) }
    const over = { [chain.probe]: { stateDiff: { [slot0.replace(/0$/, '0')]: word(0) } } }
    const [ours, anvil] = await Promise.all([ourAnswer('eth_estimateGas', [call, 'latest', over]), anvilAnswer('eth_estimateGas', [call, 'latest', over])])
    expect(BigInt(ours.result as Hex)).toBeGreaterThanOrEqual(BigInt(anvil.result as Hex))
  })
})

describe.runIf(hasAnvil)('eth_createAccessList vs Anvil', () => {
  it('answers the same list and gas', async () => {
    const to = chain.probe
    await same('eth_createAccessList', [{ from: SENDER, to, data: chain.data('set', [5n]) }])
    await same('eth_createAccessList', [{ from: SENDER, to, data: chain.data('fill', [2n]) }, 'latest'])
    await same('eth_createAccessList', [{ from: SENDER, to, data: chain.data('forward', [OTHER]), value: '0x10' }])
  })

  it("takes geth's state overrides (3rd param; Anvil refuses the param)", async () => {
    const to = chain.probe
    const plain = await ourAnswer('eth_createAccessList', [{ from: SENDER, to, data: chain.data('set', [5n]) }])
    const overridden = await ourAnswer('eth_createAccessList', [
      { from: SENDER, to, data: chain.data('set', [5n]) },
      'latest',
      { [to]: { stateDiff: { [slot0]: word(5) } } },
    ])
    expect((overridden.result as { accessList: unknown }).accessList).toEqual((plain.result as { accessList: unknown }).accessList)
    // writing the value the slot already holds costs less than changing it
    expect(BigInt((overridden.result as { gasUsed: Hex }).gasUsed)).toBeLessThan(BigInt((plain.result as { gasUsed: Hex }).gasUsed))
  })

  it("answers a failing call with its list and geth's error field (Anvil answers an error instead)", async () => {
    const ours = await ourAnswer('eth_createAccessList', [{ from: SENDER, to: chain.probe, data: chain.data('failWith', ['x']) }])
    expect(ours.result).toMatchObject({ accessList: [], error: 'execution reverted' })
  })
})

describe.runIf(hasAnvil)('forwarded reads vs Anvil', () => {
  it('answers reads exactly as the node', async () => {
    const latest = (await anvilAnswer('eth_blockNumber', [])).result as Hex
    for (const [method, params] of [
      ['eth_getTransactionReceipt', [chain.minedTx]],
      ['eth_getTransactionByHash', [chain.minedTx]],
      ['eth_getBlockByNumber', ['0x2', true]],
      ['eth_getBlockByNumber', [latest, false]],
      ['eth_getBlockReceipts', ['0x3']],
      ['eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest', address: chain.probe }]],
      ['eth_getBalance', [SENDER, '0x2']],
      ['eth_getBalance', [SENDER, 'latest']],
      ['eth_getTransactionCount', [SENDER, 'latest']],
      ['eth_getStorageAt', [chain.probe, '0x0', 'latest']],
      ['eth_getStorageAt', [chain.probe, '0x0', '0x2']],
      ['eth_getCode', [chain.probe, 'latest']],
      ['eth_chainId', []],
      ['net_version', []],
      ['eth_getProof', [chain.probe, [slot0], 'latest']],
      ['eth_feeHistory', ['0x2', 'latest', [50]]],
    ] as [string, unknown[]][]) {
      await same(method, params)
    }
  })

  it('reads state at a block hash (EIP-1898) through the engine', async () => {
    const block = (await anvilAnswer('eth_getBlockByNumber', ['0x2', false])).result as { hash: Hex }
    await same('eth_getBalance', [SENDER, { blockHash: block.hash }])
    await same('eth_getStorageAt', [chain.probe, '0x0', block.hash])
  })

  it("passes the node's own error through for a read it refuses", async () => {
    await same('eth_getBlockByNumber', ['0xzz', false])
  })
})
