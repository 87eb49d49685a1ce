/**
 * EIP-7702 through POST /v1/simulate on the embedded devnet: a call carrying an authorization
 * signed by viem runs as a set-code transaction, the authority's code is the delegation
 * designator for the next call of the same simulation (read there with EXTCODECOPY), and the
 * preview raises EIP7702_DELEGATION at the call that delegated; malformed authorization lists are
 * VALIDATION_ERRORs naming the field.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { pad, toHex, type Address, type Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { DEMO_TOKEN_ADDRESS } from '../../../engine/chains/devnet/demoTransactions.js'
import { startDevnetApp, type DevnetApp } from '../../src/support/devnetApp.js'

const A = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'
const B = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8'
const DEVNET_CHAIN_ID = 31337
/** returns the 23 first bytes of the code at the address in its calldata: EXTCODECOPY(addr, 0, 0, 23); RETURN(0, 23) */
const READER = '0x00000000000000000000000000000000c0de7702'
const READER_CODE = '0x6017600060006000353c60176000f3'

let app: DevnetApp
const authority = privateKeyToAccount(generatePrivateKey())

async function rpcAuthorization(nonce: number, chainId = DEVNET_CHAIN_ID) {
  const a = await authority.signAuthorization({ address: DEMO_TOKEN_ADDRESS as Address, chainId, nonce })
  return { chainId: toHex(a.chainId), address: a.address, nonce: toHex(a.nonce), yParity: toHex(a.yParity ?? 0), r: a.r, s: a.s }
}

/** a call from A carrying the authorizations, then a call reading the authority's code */
function simulation(authorizationList?: unknown[]) {
  return {
    params: {
      traceAssetChanges: true,
      calls: [
        { from: A, to: B, ...(authorizationList && { authorizationList }) },
        { from: A, to: READER, data: pad(authority.address.toLowerCase() as Hex) },
      ],
    },
    options: { stateOverrides: [{ address: READER, code: READER_CODE }] },
  }
}

beforeAll(async () => {
  app = await startDevnetApp()
}, 60_000)
afterAll(() => app?.close())

describe('EIP-7702 authorizations on POST /v1/simulate', () => {
  it('a signed authorization sets the delegation designator and raises EIP7702_DELEGATION at its call', async () => {
    const { status, json } = await app.request('/simulate', simulation([await rpcAuthorization(0)]))
    expect(status, JSON.stringify(json)).toBe(200)
    const { calls, warnings } = json.data
    expect(calls.map((c: { status: string }) => c.status)).toEqual(['success', 'success'])
    expect(calls[1].returnData).toBe(`0xef0100${DEMO_TOKEN_ADDRESS.slice(2).toLowerCase()}`)
    const delegation = warnings.filter((w: { code: string }) => w.code === 'EIP7702_DELEGATION')
    expect(delegation).toEqual([expect.objectContaining({ severity: 'danger', callIndex: 0, account: authority.address.toLowerCase() })])
    expect(delegation[0].message).toContain(DEMO_TOKEN_ADDRESS.toLowerCase())
    // a set-code transaction pays for its authorization: 21000 + 25000 per tuple, less the refund of an existing account
    expect(BigInt(calls[0].gasUsed)).toBeGreaterThan(21_000n)
  })

  it('without an authorization list the code stays empty and no delegation is reported', async () => {
    const { status, json } = await app.request('/simulate', simulation())
    expect(status, JSON.stringify(json)).toBe(200)
    expect(json.data.calls[1].returnData).toBe(`0x${'00'.repeat(23)}`)
    expect(json.data.warnings.map((w: { code: string }) => w.code)).not.toContain('EIP7702_DELEGATION')
    expect(BigInt(json.data.calls[0].gasUsed)).toBe(21_000n)
  })

  it('an authorization that does not apply (wrong nonce, other chain) is skipped: no code, no warning', async () => {
    for (const auth of [await rpcAuthorization(5), await rpcAuthorization(0, 1)]) {
      const { status, json } = await app.request('/simulate', simulation([auth]))
      expect(status, JSON.stringify(json)).toBe(200)
      expect(json.data.calls[1].returnData).toBe(`0x${'00'.repeat(23)}`)
      expect(json.data.warnings.map((w: { code: string }) => w.code)).not.toContain('EIP7702_DELEGATION')
    }
  })

  it('an authorization for any chain (chainId 0x0) applies', async () => {
    const { json } = await app.request('/simulate', simulation([await rpcAuthorization(0, 0)]))
    expect(json.data.calls[1].returnData).toBe(`0xef0100${DEMO_TOKEN_ADDRESS.slice(2).toLowerCase()}`)
    expect(json.data.warnings.map((w: { code: string }) => w.code)).toContain('EIP7702_DELEGATION')
  })

  it('the other routes taking a call object run it as a set-code transaction too', async () => {
    const call = { from: A, to: authority.address.toLowerCase(), data: '0x18160ddd', authorizationList: [await rpcAuthorization(0)] }
    // the call to the authority runs the code it delegates to: the demo token's totalSupply() in the authority's storage (0)
    const traced = await app.request('/trace/call', { call, tracerConfig: { callTracer: {} } })
    expect(traced.status, JSON.stringify(traced.json)).toBe(200)
    // an account without code would answer 0x
    expect(traced.json.data.callTracer.output).toBe(pad('0x0'))
    const listed = await app.request('/simulate/access-list', { params: call })
    expect(listed.status, JSON.stringify(listed.json)).toBe(200)
  })

  it('malformed authorization lists are VALIDATION_ERRORs naming the field', async () => {
    const good = await rpcAuthorization(0)
    const cases: [unknown, string][] = [
      [[], 'params.calls[0].authorizationList'],
      [[{ ...good, nonce: '0x10000000000000000' }], 'params.calls[0].authorizationList[0].nonce'],
      [[{ ...good, yParity: '0x100' }], 'params.calls[0].authorizationList[0].yParity'],
      [[{ ...good, r: `0x1${'0'.repeat(64)}` }], 'params.calls[0].authorizationList[0].r'],
      [[{ ...good, chainId: '12' }], 'params.calls[0].authorizationList[0].chainId'],
      [[{ ...good, address: '0x1234' }], 'params.calls[0].authorizationList[0].address'],
      [[{ ...good, s: undefined }], 'params.calls[0].authorizationList[0].s'],
      [[{ ...good, v: '0x1b' }], 'params.calls[0].authorizationList[0].v'],
    ]
    for (const [list, path] of cases) {
      const { status, json } = await app.request('/simulate', simulation(list as unknown[]))
      expect(status, JSON.stringify(list)).toBe(400)
      expect(json.error.code).toBe('VALIDATION_ERROR')
      expect(
        json.error.details.issues.map((i: { path: string }) => i.path),
        JSON.stringify(json.error),
      ).toContain(path)
    }
  })

  it('a contract creation cannot carry an authorization list', async () => {
    const { status, json } = await app.request('/simulate', { params: { calls: [{ from: A, data: '0x00', authorizationList: [await rpcAuthorization(0)] }] } })
    expect(status).toBe(400)
    expect(json.error.code).toBe('VALIDATION_ERROR')
    expect(json.error.details.issues[0].path).toBe('params.calls[0].authorizationList')
  })
})
