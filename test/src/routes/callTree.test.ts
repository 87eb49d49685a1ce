/**
 * The decoded call tree over HTTP on the embedded devnet: tracer `callTree` on every trace
 * endpoint, `params.traceCalls` on /simulate shape A, and the validation of `abis`/`labels`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startDevnetApp, type DevnetApp } from '../support/devnetApp.js'

const DEMO_TOKEN = '0x5fbdb2315678afecb367f032d93f642f64180aa3'
const DEMO_TRANSFER_TX = '0x8849d23607d7c87b58414fda583340f2c2b6393f2461223972e42e81c7fda23b'
const A0 = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'
const A1 = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8'
// transfer(A1, 1 DEMO)
const TRANSFER = `0xa9059cbb000000000000000000000000${A1.slice(2)}0000000000000000000000000000000000000000000000000de0b6b3a7640000`

let app: DevnetApp
beforeAll(async () => {
  app = await startDevnetApp()
})
afterAll(async () => {
  await app?.close()
})

describe('callTree over HTTP (devnet)', () => {
  it('/trace/tx: the demo transfer decoded, with the DEMO label and the Transfer event', async () => {
    const { status, json } = await app.request('/trace/tx', { transactionHash: DEMO_TRANSFER_TX, tracerConfig: { callTree: true } })
    expect(status).toBe(200)
    expect(Object.keys(json.data)).toEqual(['callTree'])
    const tree = json.data.callTree
    expect(tree.function).toEqual({
      name: 'transfer',
      signature: 'transfer(address,uint256)',
      args: { to: A1, value: '1000000000000000000000' },
      source: 'bundled',
    })
    expect(tree.labels).toEqual({ to: 'DEMO' })
    expect(tree.logs[0].decoded.summary).toBe('Transfer 1000 DEMO from 0xf39f…2266 to 0x7099…79c8')
  })

  it('/trace/call and /trace/call-many take abis and labels; call-many decodes every transaction', async () => {
    const abis = { [DEMO_TOKEN.toUpperCase().replace('0X', '0x')]: ['function transfer(address recipient, uint256 amount) returns (bool ok)'] }
    const one = await app.request('/trace/call', {
      call: { from: A0, to: DEMO_TOKEN, data: TRANSFER },
      tracerConfig: { callTree: { abis, labels: { [A0]: 'alice' } } },
    })
    expect(one.status).toBe(200)
    expect(one.json.data.callTree.function).toEqual({
      name: 'transfer',
      signature: 'transfer(address,uint256)',
      args: { recipient: A1, amount: '1000000000000000000' },
      source: 'abi',
    })
    expect(one.json.data.callTree.result).toEqual({ ok: true })
    expect(one.json.data.callTree.labels).toEqual({ from: 'alice', to: 'DEMO' })

    const many = await app.request('/trace/call-many', {
      bundles: [
        {
          transactions: [
            { from: A0, to: DEMO_TOKEN, data: TRANSFER },
            { from: A0, to: A1, value: '0x1' },
          ],
        },
      ],
      tracerConfig: { callTree: true, callTracer: true },
    })
    expect(many.status).toBe(200)
    const [[first, second]] = many.json.data
    expect(first.callTree.function.name).toBe('transfer')
    expect(first.callTracer.function).toBeUndefined() // geth's tracer stays geth's
    expect(second.callTree.type).toBe('CALL')
    expect(second.callTree.function).toBeUndefined() // a plain value transfer has no calldata
  })

  it('/simulate: params.traceCalls gives every call its callTree (reverts decoded too)', async () => {
    const ok = await app.request('/simulate', { params: { calls: [{ from: A0, to: DEMO_TOKEN, data: TRANSFER }], traceCalls: true, labels: { [A1]: 'bob' } } })
    expect(ok.status).toBe(200)
    const tree = ok.json.data.calls[0].callTree
    expect(tree.function.name).toBe('transfer')
    expect(tree.logs[0].decoded.name).toBe('Transfer')
    expect(tree.logs[0].decoded.summary).toBe('Transfer 1 DEMO from 0xf39f…2266 to 0x7099…79c8')

    // transferFrom without allowance: the devnet token's require message
    const data = `0x23b872dd000000000000000000000000${A0.slice(2)}000000000000000000000000${A1.slice(2)}0000000000000000000000000000000000000000000000000000000000000005`
    const bad = await app.request('/simulate', { params: { calls: [{ from: A1, to: DEMO_TOKEN, data }], traceCalls: true } })
    expect(bad.status).toBe(422)
    const failed = bad.json.error.details.simulation.calls[0].callTree
    expect(failed.revert).toMatchObject({ name: 'Error', reason: 'DEMO: allowance exceeded' })
    expect(failed.function.name).toBe('transferFrom')

    const without = await app.request('/simulate', { params: { calls: [{ from: A0, to: DEMO_TOKEN, data: TRANSFER }] } })
    expect(without.json.data.calls[0].callTree).toBeUndefined()
  })

  it('rejects a bad ABI, a bad address key, an unknown option: VALIDATION_ERROR naming the path', async () => {
    const call = { from: A0, to: DEMO_TOKEN, data: TRANSFER }
    const badItem = await app.request('/trace/call', {
      call,
      tracerConfig: { callTree: { abis: { [DEMO_TOKEN]: ['function transfer(address to, uint257 v)'] } } },
    })
    expect(badItem.status).toBe(400)
    expect(badItem.json.error.code).toBe('VALIDATION_ERROR')
    expect(badItem.json.error.message).toContain(`tracerConfig.callTree.abis.${DEMO_TOKEN}[0]`)

    const badJson = await app.request('/trace/call', {
      call,
      tracerConfig: { callTree: { abis: { [DEMO_TOKEN]: [{ type: 'function', name: 'x', inputs: [{ type: 'uint7' }] }] } } },
    })
    expect(badJson.status).toBe(400)
    expect(badJson.json.error.message).toContain('[0]: not a valid ABI item')

    const badKey = await app.request('/simulate', { params: { calls: [call], traceCalls: true, labels: { 'not-an-address': 'x' } } })
    expect(badKey.status).toBe(400)
    expect(badKey.json.error.message).toContain('params.labels.not-an-address')

    const unused = await app.request('/simulate', { params: { calls: [call], abis: { [DEMO_TOKEN]: [] } } })
    expect(unused.status).toBe(400)
    expect(unused.json.error.message).toBe('params.abis: only used with params.traceCalls: true')

    const unknown = await app.request('/trace/call', { call, tracerConfig: { callTree: { abi: {} } } })
    expect(unknown.status).toBe(400)
    expect(unknown.json.error.code).toBe('VALIDATION_ERROR')
  })
})
