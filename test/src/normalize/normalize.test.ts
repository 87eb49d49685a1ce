import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { SimulateParams, TraceCallParams, AccessListParams, TraceCallManyParams } from '../../../engine/types.js'
import { post, startTestApp, type TestApp } from '../support/startTestApp.js'

// dev account 0 in its EIP-55 form, and the same with one letter's case flipped (bad checksum)
const checksummed = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'
const badChecksum = '0xf39fd6e51aad88F6F4ce6aB8827279cffFb92266'
const to = '0x5fbdb2315678afecb367f032d93f642f64180aa3'

describe('request normalization (what reaches the engine)', () => {
  let app: TestApp
  beforeAll(async () => {
    app = await startTestApp({ env: { MAX_CALLS_PER_SIMULATION: '3' } })
  })
  afterAll(() => app.close())

  const simulate = async (body: unknown) => {
    const res = await app.fetch('/v1/simulate', post(body))
    return { res, json: await res.json() }
  }
  const issues = (json: { error: { details: { issues: { path: string }[] } } }) => json.error.details.issues.map((i) => i.path)

  it('addresses: any case accepted when the checksum is valid, returned lowercase; bad checksum rejected', async () => {
    const { res } = await simulate({
      params: { calls: [{ from: checksummed, to: to.toUpperCase().replace('0X', '0x'), data: '0xABCDEF' }], account: checksummed },
    })
    expect(res.status).toBe(200)
    const params = app.engine.last('simulate')![0] as SimulateParams
    expect(params.calls[0]).toMatchObject({ from: checksummed.toLowerCase(), to, data: '0xabcdef' })
    expect(params.account).toBe(checksummed.toLowerCase())

    const bad = await simulate({ params: { calls: [{ from: badChecksum, to }] } })
    expect(bad.res.status).toBe(400)
    expect(bad.json.error.details.issues).toEqual([{ path: 'params.calls[0].from', message: expect.stringMatching(/checksum/) }])
  })

  it('quantities: leading zeros accepted, normalized to bigint; defaults applied', async () => {
    await simulate({ params: { calls: [{ to, gas: '0x0005208', value: '0x00', nonce: '0x01', maxFeePerGas: '0x0a' }] } })
    const params = app.engine.last('simulate')![0] as SimulateParams
    expect(params.calls[0]).toEqual({
      from: '0x0000000000000000000000000000000000000000',
      to,
      data: '0x',
      gas: 21000n,
      value: 0n,
      nonce: 1n,
      maxFeePerGas: 10n,
    })
    expect(params).toMatchObject({ block: { tag: 'latest' }, validation: false, traceAssetChanges: false, traceTransfers: false })
  })

  it('out-of-range and malformed quantities are VALIDATION_ERRORs', async () => {
    expect(issues((await simulate({ params: { calls: [{ to, gas: `0x1${'0'.repeat(16)}` }] } })).json)).toEqual(['params.calls[0].gas'])
    expect(issues((await simulate({ params: { calls: [{ to, value: `0x1${'0'.repeat(64)}` }] } })).json)).toEqual(['params.calls[0].value'])
    expect(issues((await simulate({ params: { calls: [{ to, value: '12' }] } })).json)).toEqual(['params.calls[0].value'])
    expect(issues((await simulate({ params: { calls: [{ to, data: '0xabc' }] } })).json)).toEqual(['params.calls[0].data'])
  })

  it('input is an alias of data; both differing is an error; to null is a creation', async () => {
    await simulate({ params: { calls: [{ to: null, input: '0x6080' }] } })
    expect((app.engine.last('simulate')![0] as SimulateParams).calls[0]).toMatchObject({ to: null, data: '0x6080' })
    const both = await simulate({ params: { calls: [{ to, input: '0x01', data: '0x02' }] } })
    expect(issues(both.json)).toEqual(['params.calls[0].input'])
  })

  it('gasPrice with EIP-1559 fields is an error', async () => {
    const { json } = await simulate({ params: { calls: [{ to, gasPrice: '0x1', maxFeePerGas: '0x2' }] } })
    expect(issues(json)).toEqual(['params.calls[0].gasPrice'])
  })

  it('block selector: blockNumber or blockTag; both is a VALIDATION_ERROR', async () => {
    await simulate({ params: { calls: [{ to }], blockNumber: '0x0010' } })
    expect((app.engine.last('simulate')![0] as SimulateParams).block).toEqual({ number: 16n })
    await simulate({ params: { calls: [{ to }], blockTag: 'finalized' } })
    expect((app.engine.last('simulate')![0] as SimulateParams).block).toEqual({ tag: 'finalized' })
    const both = await simulate({ params: { calls: [{ to }], blockNumber: '0x1', blockTag: 'latest' } })
    expect(both.res.status).toBe(400)
    expect(issues(both.json)).toEqual(['params.blockNumber'])
    const badTag = await simulate({ params: { calls: [{ to }], blockTag: 'newest' } })
    expect(issues(badTag.json)).toEqual(['params.blockTag'])
  })

  it('a "__proto__" key (state-override map, storage map, anywhere) is a 400 naming it, never silently dropped', async () => {
    const bodies: [string, string, string][] = [
      ['/v1/trace/call', `{"call":{"to":"${to}"},"stateOverrides":{"__proto__":{"balance":"0xzz"}}}`, 'stateOverrides.__proto__'],
      ['/v1/trace/call', `{"call":{"to":"${to}"},"stateOverrides":{"__proto__":{"balance":"0x1"}}}`, 'stateOverrides.__proto__'],
      ['/v1/trace/call', `{"call":{"to":"${to}"},"stateOverrides":{"${to}":{"storage":{"__proto__":"0x1"}}}}`, `stateOverrides.${to}.storage.__proto__`],
      [
        '/v1/simulate',
        `{"params":{"calls":[{"to":"${to}"}]},"options":{"stateOverrides":[{"address":"${to}","storage":{"__proto__":"0x1"}}]}}`,
        'options.stateOverrides[0].storage.__proto__',
      ],
      ['/v1/simulate', `{"params":{"calls":[{"to":"${to}","__proto__":{"x":1}}]}}`, 'params.calls[0].__proto__'],
    ]
    for (const [path, body, where] of bodies) {
      const res = await app.fetch(path, post(body))
      const json = await res.json()
      expect(res.status, body).toBe(400)
      expect(json.error.code).toBe('VALIDATION_ERROR')
      expect(issues(json)).toEqual([where])
    }
  })

  it('simulation stateOverrides array → map; storage = stateDiff, state = full replace; slots padded to 32 bytes', async () => {
    await simulate({
      params: { calls: [{ to }] },
      options: {
        stateOverrides: [
          { address: checksummed, balance: '0x0de0b6b3a7640000', nonce: '0x2', code: '0x60FF', storage: { '0x1': '0x02' } },
          { address: to, state: { '0x00': '0xff' } },
        ],
        blockOverrides: { number: 100, time: '0x10', baseFee: '0x0', gasLimit: 30000000, coinbase: checksummed },
      },
    })
    const params = app.engine.last('simulate')![0] as SimulateParams
    const word = (n: number) => `0x${n.toString(16).padStart(64, '0')}`
    expect(params.stateOverrides).toEqual({
      [checksummed.toLowerCase()]: { balance: 10n ** 18n, nonce: 2n, code: '0x60ff', stateDiff: { [word(1)]: word(2) } },
      [to]: { state: { [word(0)]: word(255) } },
    })
    expect(params.blockOverrides).toEqual({ number: 100n, time: 16n, baseFee: 0n, gasLimit: 30_000_000n, coinbase: checksummed.toLowerCase() })
  })

  it('state overrides: both storage and state, or the same address twice, are errors', async () => {
    const both = await simulate({ params: { calls: [{ to }] }, options: { stateOverrides: [{ address: to, storage: {}, state: {} }] } })
    expect(issues(both.json)).toEqual(['options.stateOverrides[0].state'])
    const twice = await simulate({
      params: { calls: [{ to }] },
      options: { stateOverrides: [{ address: to }, { address: to.toUpperCase().replace('0X', '0x') }] },
    })
    expect(issues(twice.json)).toEqual(['options.stateOverrides[1].address'])
  })

  it('trace stateOverrides object → the same map; keys validated', async () => {
    const res = await app.fetch(
      '/v1/trace/call',
      post({ call: { to }, stateOverrides: { [checksummed]: { balance: '0x1', storage: { '0x0': '0x1' } } }, blockOverrides: { baseFee: 7 } }),
    )
    expect(res.status).toBe(200)
    const params = app.engine.last('traceCall')![0] as TraceCallParams
    expect(params.stateOverrides).toEqual({ [checksummed.toLowerCase()]: { balance: 1n, stateDiff: { [`0x${'0'.repeat(64)}`]: `0x${'0'.repeat(63)}1` } } })
    expect(params.blockOverrides).toEqual({ baseFee: 7n })
    const badKey = await app.fetch('/v1/trace/call', post({ call: { to }, stateOverrides: { '0x12': { balance: '0x1' } } }))
    expect((await badKey.json()).error.details.issues[0].path).toBe('stateOverrides.0x12')
  })

  it('tracerConfig: none → callTracer; withLogs/withLog → withLog; true/false toggles; unknown tracer rejected', async () => {
    const trace = async (tracerConfig: unknown) => {
      const res = await app.fetch('/v1/trace/call', post({ call: { to }, ...(tracerConfig !== undefined && { tracerConfig }) }))
      return { res, cfg: (app.engine.last('traceCall')![0] as TraceCallParams).tracerConfig }
    }
    expect((await trace(undefined)).cfg).toEqual({ callTracer: {} })
    expect((await trace({})).cfg).toEqual({ callTracer: {} })
    expect((await trace({ callTracer: { withLogs: true, onlyTopCall: true } })).cfg).toEqual({ callTracer: { withLog: true, onlyTopCall: true } })
    expect((await trace({ callTracer: { withLog: true } })).cfg).toEqual({ callTracer: { withLog: true } })
    expect((await trace({ prestateTracer: { diffMode: true }, '4byteTracer': true, structLogger: true })).cfg).toEqual({
      prestateTracer: { diffMode: true },
      '4byteTracer': true,
      structLogger: {},
    })
    const unknown = await app.fetch('/v1/trace/call', post({ call: { to }, tracerConfig: { flatCallTracer: {} } }))
    expect(unknown.status).toBe(400)
    const body = await unknown.json()
    expect(body.error.code).toBe('VALIDATION_ERROR')
    expect(body.error.details.issues[0]).toEqual({ path: 'tracerConfig.flatCallTracer', message: expect.stringMatching(/unknown/) })
    const badOption = await app.fetch('/v1/trace/call', post({ call: { to }, tracerConfig: { callTracer: { onlyTopCall: 'yes' } } }))
    expect((await badOption.json()).error.details.issues[0].path).toBe('tracerConfig.callTracer.onlyTopCall')
  })

  it('trace/tx: hash lowercased, overrides passed on; trace/call-many: bundles normalized', async () => {
    const hash = `0x${'AB'.repeat(32)}`
    await app.fetch('/v1/trace/tx', post({ transactionHash: hash, tracerConfig: { '4byteTracer': true } }))
    expect(app.engine.last('traceTransaction')).toEqual([hash.toLowerCase(), { '4byteTracer': true }])
    await app.fetch('/v1/trace/tx', post({ transactionHash: hash, blockOverrides: { number: '0x5' } }))
    expect(app.engine.last('traceTransaction')![2]).toEqual({ blockOverrides: { number: 5n } })

    const res = await app.fetch(
      '/v1/trace/call-many',
      post({ bundles: [{ transactions: [{ to }, { to }] }, { transactions: [{ to, value: '0x1' }] }], blockNumber: '0x2' }),
    )
    expect(res.status).toBe(200)
    expect((await res.json()).data).toHaveLength(2)
    const params = app.engine.last('traceCallMany')![0] as TraceCallManyParams
    expect(params.block).toEqual({ number: 2n })
    expect(params.bundles[1]!.transactions[0]).toMatchObject({ to, value: 1n })
  })

  it('access list: params call, block as tag or number', async () => {
    const res = await app.fetch('/v1/simulate/access-list', post({ params: { from: checksummed, to, data: '0x' }, block: '0x3' }))
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ success: true, data: { accessList: [], gasUsed: '0x5208' } })
    const params = app.engine.last('accessList')![0] as AccessListParams
    expect(params).toMatchObject({ call: { from: checksummed.toLowerCase(), to }, block: { number: 3n } })
    const twice = await app.fetch('/v1/simulate/access-list', post({ params: { to }, block: 'latest', blockTag: 'latest' }))
    expect(twice.status).toBe(400)
  })

  it('unknown keys: ignored at the top of a body (interface §1), a VALIDATION_ERROR naming the key inside it', async () => {
    const top = await simulate({ params: { calls: [{ from: checksummed, to }] }, comment: 'top-level: ignored' })
    expect(top.res.status).toBe(200)
    const cases: [string, unknown, string][] = [
      ['/v1/simulate', { params: { calls: [{ from: checksummed, to, gasLimit: '0x5208' }] } }, 'params.calls[0].gasLimit'],
      ['/v1/simulate', { params: { calls: [{ to }], traceTransfer: true } }, 'params.traceTransfer'],
      ['/v1/simulate', { params: { calls: [{ to }] }, options: { stateOverrides: [{ address: to, balanse: '0x1' }] } }, 'options.stateOverrides[0].balanse'],
      ['/v1/simulate', { params: { calls: [{ to }] }, options: { blockOverride: {} } }, 'options.blockOverride'],
      ['/v1/simulate', { transaction: { to }, traceConfig: { disableStack: true } }, 'traceConfig.disableStack'],
      ['/v1/trace/call', { call: { to }, tracerConfig: { callTracer: { onlyTopcall: true } } }, 'tracerConfig.callTracer.onlyTopcall'],
      ['/v1/trace/call', { call: { to }, blockOverrides: { nmber: '0x1' } }, 'blockOverrides.nmber'],
      ['/v1/trace/call', { call: { to }, stateOverrides: { [to]: { stateDiff: {} } } }, `stateOverrides.${to}.stateDiff`],
      ['/v1/trace/call-many', { bundles: [{ transactions: [{ to }], blockOverride: {} }] }, 'bundles[0].blockOverride'],
      ['/v1/simulate/access-list', { params: { to, accessList: [{ address: to, storageKeys: [], slots: [] }] } }, 'params.accessList[0].slots'],
    ]
    for (const [path, body, where] of cases) {
      const res = await app.fetch(path, post(body))
      const json = (await res.json()) as { error: { code: string; details: { issues: { path: string; message: string }[] } } }
      expect({ path, status: res.status, code: json.error.code }).toEqual({ path, status: 400, code: 'VALIDATION_ERROR' })
      expect(json.error.details.issues[0]).toEqual({ path: where, message: `unknown key "${where.split('.').at(-1)!.replace(/^.*\]/, '')}"` })
    }
  })

  it('too many calls in one simulation: 413 PAYLOAD_TOO_LARGE', async () => {
    const { res, json } = await simulate({ params: { calls: [{ to }, { to }, { to }, { to }] } })
    expect(res.status).toBe(413)
    expect(json.error.code).toBe('PAYLOAD_TOO_LARGE')
    const many = await app.fetch('/v1/trace/call-many', post({ bundles: [{ transactions: [{ to }, { to }] }, { transactions: [{ to }, { to }] }] }))
    expect(many.status).toBe(413)
  })
})
