/**
 * /simulate, /simulate/batch, /simulate/access-list and /simulations/{id} over real HTTP against
 * the engine on the embedded devnet: the failure paths of interface §2-§7 with real executions
 * (a revert with its reason and contract, out of gas with gasRequired, validation naming the
 * call, a block past the head), shape B, both batch forms, and stored results.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { encodeFunctionData, parseAbi } from 'viem'
import { DEMO_NFT_ADDRESS, DEMO_TOKEN_ADDRESS } from '../../../engine/chains/devnet/demoTransactions.js'
import { startDevnetApp, type DevnetApp } from '../support/devnetApp.js'

const A = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'
const B = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8'
const C = '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc'
const abi = parseAbi([
  'function transfer(address,uint256) returns (bool)',
  'function transferFrom(address,address,uint256)',
  'function balanceOf(address) view returns (uint256)',
])
const transfer = (to: string, amount: bigint) => encodeFunctionData({ abi, functionName: 'transfer', args: [to as `0x${string}`, amount] })

let app: DevnetApp
beforeAll(async () => {
  app = await startDevnetApp()
}, 60_000)
afterAll(() => app?.close())

describe('POST /simulate on the devnet', () => {
  it('a revert is 422 SIMULATION_EXECUTION_FAILED with the reason, the contract and the full simulation', async () => {
    const { status, json } = await app.request('/simulate', {
      params: {
        calls: [
          { from: A, to: DEMO_TOKEN_ADDRESS, data: transfer(B, 1n) },
          { from: C, to: DEMO_TOKEN_ADDRESS, data: encodeFunctionData({ abi, functionName: 'transferFrom', args: [A, C, 1n] }) },
        ],
      },
    })
    expect(status).toBe(422)
    expect(json.error.code).toBe('SIMULATION_EXECUTION_FAILED')
    expect(json.error.details).toMatchObject({ callIndex: 1, revertReason: 'DEMO: allowance exceeded', contractAddress: DEMO_TOKEN_ADDRESS })
    expect(json.error.details.simulation.calls[0].logs[0].decoded.name).toBe('Transfer')
    const stored = await app.request(`/simulations/${json.error.details.simulation.simulationId}`)
    expect(stored.json.data).toEqual(json.error.details.simulation)
  })

  it('out of gas is 422 INSUFFICIENT_GAS with gasRequired and a suggestion', async () => {
    const { status, json } = await app.request('/simulate', {
      params: { calls: [{ from: C, to: DEMO_NFT_ADDRESS, gas: '0x6000', data: encodeFunctionData({ abi, functionName: 'transferFrom', args: [C, B, 1n] }) }] },
    })
    expect(status).toBe(422)
    expect(json.error.code).toBe('INSUFFICIENT_GAS')
    expect(json.error.details.gasRequired).toMatch(/^0x[0-9a-f]+$/)
    expect(json.error.suggestion).toContain(json.error.details.gasRequired)
  })

  it('validation=true: a wrong nonce is 400 VALIDATION_ERROR naming the call', async () => {
    const { status, json } = await app.request('/simulate', {
      params: {
        validation: true,
        calls: [
          { from: A, to: B, value: '0x1', nonce: '0x7', maxFeePerGas: '0x3b9aca00' },
          { from: A, to: B, value: '0x1', nonce: '0x0', maxFeePerGas: '0x3b9aca00' },
        ],
      },
    })
    expect(status).toBe(400)
    expect(json.error.code).toBe('VALIDATION_ERROR')
    expect(json.error.message).toMatch(/calls\[1\]/)
  })

  it('a block past the head is 404 BLOCK_NOT_FOUND', async () => {
    const { status, json } = await app.request('/simulate', { params: { calls: [{ from: A, to: B }], blockNumber: '0x64' } })
    expect(status).toBe(404)
    expect(json.error.code).toBe('BLOCK_NOT_FOUND')
  })

  it('shape B answers in its own shape', async () => {
    const { status, json } = await app.request('/simulate', {
      transaction: { from: A, to: DEMO_TOKEN_ADDRESS, data: encodeFunctionData({ abi, functionName: 'balanceOf', args: [A] }) },
      blockNumber: 'latest',
      traceConfig: { enableStorage: true },
    })
    expect(status).toBe(200)
    expect(json.success).toBe(true)
    expect(json.result.trace.steps.length).toBeGreaterThan(10)
    expect(json.result.trace.storageChanges).toEqual({})
    expect(BigInt(json.result.returnValue)).toBe(998_500n * 10n ** 18n)
  })
})

describe('POST /simulate/batch and /simulate/access-list on the devnet', () => {
  it('independent items: one failing item does not fail the others', async () => {
    const { status, json } = await app.request('/simulate/batch', [
      { params: { calls: [{ from: B, to: DEMO_TOKEN_ADDRESS, data: transfer(C, 1n) }] } },
      { params: { calls: [{ from: C, to: DEMO_TOKEN_ADDRESS, data: transfer(B, 10n ** 30n) }] } },
      { params: { calls: [{ from: B, to: DEMO_TOKEN_ADDRESS, data: transfer(C, 1n) }], blockNumber: '0x3' } },
    ])
    expect(status).toBe(200)
    expect(json.data.map((d: { status: string }) => d.status)).toEqual(['success', 'reverted', 'reverted'])
    expect(json.data[1].error.details.revertReason).toMatch(/^InsufficientBalance\(/)
  })

  it('the {transactions} form is one simulation in sequence', async () => {
    const { json } = await app.request('/simulate/batch', {
      transactions: [
        { from: A, to: C, value: '0xde0b6b3a7640000' },
        { from: C, to: B, value: '0xde0b6b3a7640000' },
      ],
      blockNumber: 'latest',
    })
    expect(json.data).toHaveLength(2)
    expect(json.data[0].simulationId).toBe(json.data[1].simulationId)
    const stored = await app.request(`/simulations/${json.data[0].simulationId}`)
    expect(stored.json.data.calls.map((c: { gasUsed: string }) => c.gasUsed)).toEqual(['0x5208', '0x5208'])
  })

  it('access list of an NFT transfer: the NFT contract’s slots, sorted', async () => {
    const { json } = await app.request('/simulate/access-list', {
      params: { from: B, to: DEMO_NFT_ADDRESS, data: encodeFunctionData({ abi, functionName: 'transferFrom', args: [B, C, 2n] }) },
      block: 'latest',
    })
    const keys: string[] = json.data.accessList[0].storageKeys
    expect(json.data.accessList.map((e: { address: string }) => e.address)).toEqual([DEMO_NFT_ADDRESS])
    expect(keys).toEqual([...keys].sort())
    expect(keys.length).toBeGreaterThanOrEqual(4)
    expect(json.data.error).toBeUndefined()
  })
})
