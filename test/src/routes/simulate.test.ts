import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { SimulateParams, SimulationResult } from '../../../engine/types.js'
import { authed, post, startTestApp, type TestApp } from '../support/startTestApp.js'
import { successResult } from '../support/testEngine.js'

const from = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'
const to = '0x5fbdb2315678afecb367f032d93f642f64180aa3'

/** a result whose call `index` reverted (or ran out of gas) */
function failing(params: SimulateParams, index: number, kind: 'revert' | 'oog'): SimulationResult {
  const result = successResult(params)
  result.status = kind === 'revert' ? 'reverted' : 'failed'
  result.calls[index] = {
    ...result.calls[index]!,
    status: result.status,
    returnData: kind === 'revert' ? '0x08c379a0' : '0x',
    error:
      kind === 'revert'
        ? { message: 'execution reverted', revertReason: 'insufficient balance', revertData: '0x08c379a0' }
        : { message: 'out of gas', gasRequired: '0xb411' },
  }
  return result
}

describe('POST /v1/simulate and /v1/simulate/batch envelopes', () => {
  let app: TestApp
  beforeAll(async () => {
    app = await startTestApp({ env: { MAX_BATCH_SIZE: '3' } })
  })
  afterAll(() => app.close())

  it('shape A success: 200 {success, data} and the result is retrievable by id', async () => {
    const res = await app.fetch('/v1/simulate', post({ params: { calls: [{ from, to }] } }))
    expect(res.status).toBe(200)
    const body = await res.json()
    expect(body).toMatchObject({ success: true, data: { status: 'success', calls: [{ callIndex: 0, status: 'success' }] } })
    const stored = await app.fetch(`/v1/simulations/${body.data.simulationId}`, authed())
    expect(stored.status).toBe(200)
    expect(await stored.json()).toEqual({ success: true, data: body.data })
  })

  it('unknown or malformed simulation id: 404 / 400', async () => {
    const unknown = await app.fetch('/v1/simulations/sim_11111111-2222-4333-8444-555555555555', authed())
    expect(unknown.status).toBe(404)
    expect((await unknown.json()).error.code).toBe('NOT_FOUND')
    const malformed = await app.fetch('/v1/simulations/abc', authed())
    expect(malformed.status).toBe(400)
  })

  it('a reverted call: 422 SIMULATION_EXECUTION_FAILED with callIndex, reason, data, contract and the full simulation', async () => {
    app.engine.answer('simulate', async (p) => failing(p, 1, 'revert'))
    const res = await app.fetch(
      '/v1/simulate',
      post({
        params: {
          calls: [
            { from, to },
            { from, to },
          ],
        },
      }),
    )
    expect(res.status).toBe(422)
    const { error } = await res.json()
    expect(error.code).toBe('SIMULATION_EXECUTION_FAILED')
    expect(error.message).toContain('insufficient balance')
    expect(error.details).toMatchObject({ callIndex: 1, revertReason: 'insufficient balance', revertData: '0x08c379a0', contractAddress: to })
    expect(error.details.simulation.calls).toHaveLength(2)
    expect(error.details.simulation.status).toBe('reverted')
    expect(error.suggestion).toBeTruthy()
  })

  it('out of gas: 422 INSUFFICIENT_GAS with gasRequired and a suggestion naming it', async () => {
    app.engine.answer('simulate', async (p) => failing(p, 0, 'oog'))
    const res = await app.fetch('/v1/simulate', post({ params: { calls: [{ from, to, gas: '0x5208' }] } }))
    expect(res.status).toBe(422)
    const { error } = await res.json()
    expect(error.code).toBe('INSUFFICIENT_GAS')
    expect(error.details.gasRequired).toBe('0xb411')
    expect(error.suggestion).toContain('0xb411')
  })

  it('batch array: items independent; an invalid item and a failing item carry their own error', async () => {
    app.engine.answer('simulate', async (p) => (p.calls[0]!.value === 1n ? failing(p, 0, 'revert') : successResult(p)))
    const res = await app.fetch(
      '/v1/simulate/batch',
      post([
        { params: { calls: [{ from, to }] } },
        { params: { calls: [{ from, to: '0xnope' }] } },
        { params: { calls: [{ from, to, value: '0x1' }], blockNumber: '0x1' } },
      ]),
    )
    expect(res.status).toBe(200)
    const { success, data } = await res.json()
    expect(success).toBe(true)
    expect(data).toHaveLength(3)
    expect(data[0]).toEqual({ simulationId: expect.stringMatching(/^sim_/), status: 'success', gasUsed: '0x5208' })
    expect(data[1]).toMatchObject({ simulationId: null, error: { code: 'VALIDATION_ERROR', details: { issues: [{ path: 'params.calls[0].to' }] } } })
    expect(data[2]).toMatchObject({ status: 'reverted', error: { code: 'SIMULATION_EXECUTION_FAILED', details: { callIndex: 0 } } })
    const blocks = app.engine.calls
      .filter((c) => c.method === 'simulate')
      .slice(-2)
      .map((c) => (c.args[0] as SimulateParams).block)
    expect(blocks).toEqual([{ tag: 'latest' }, { number: 1n }])
  })

  it('batch over max_batch_size: 413 PAYLOAD_TOO_LARGE (both forms)', async () => {
    const item = { params: { calls: [{ from, to }] } }
    const res = await app.fetch('/v1/simulate/batch', post([item, item, item, item]))
    expect(res.status).toBe(413)
    expect((await res.json()).error.code).toBe('PAYLOAD_TOO_LARGE')
    const seq = await app.fetch('/v1/simulate/batch', post({ transactions: [{ to }, { to }, { to }, { to }] }))
    expect(seq.status).toBe(413)
  })

  it('batch {transactions, blockNumber}: one simulation in sequence, shared id, callIndex per item', async () => {
    app.engine.answer('simulate', async (p) => failing(p, 1, 'revert'))
    const res = await app.fetch(
      '/v1/simulate/batch',
      post({
        transactions: [
          { from, to },
          { from, to },
        ],
        blockNumber: 'latest',
      }),
    )
    expect(res.status).toBe(200)
    const { data } = await res.json()
    expect(data).toHaveLength(2)
    expect(data[0].simulationId).toBe(data[1].simulationId)
    expect(data.map((d: { callIndex: number }) => d.callIndex)).toEqual([0, 1])
    expect(data[0]).not.toHaveProperty('error')
    expect(data[1].error).toMatchObject({ code: 'SIMULATION_EXECUTION_FAILED', details: { callIndex: 1 } })
    const params = app.engine.last('simulate')![0] as SimulateParams
    expect(params.calls).toHaveLength(2)
    expect(params.block).toEqual({ tag: 'latest' })
  })

  it('shape B (transaction): {success, result} with the step trace; a revert is a 422', async () => {
    const res = await app.fetch('/v1/simulate', post({ transaction: { from, to }, blockNumber: 'latest', traceConfig: { enableMemory: true } }))
    expect(res.status).toBe(200)
    const body = await res.json()
    expect(body).toEqual({
      success: true,
      result: { gasUsed: '0x5208', gasLimit: '0x2faf080', logs: [], returnValue: '0x', trace: { steps: [], storageChanges: {}, memoryChanges: [] } },
    })
    expect(app.engine.last('simulateSteps')![0]).toMatchObject({ call: { from, to }, block: { tag: 'latest' }, traceConfig: { enableMemory: true } })

    app.engine.answer('simulateSteps', async () => ({
      success: false,
      gasUsed: '0x6000',
      gasLimit: '0x2faf080',
      logs: [],
      returnValue: '0x',
      error: { message: 'execution reverted', revertReason: 'nope' },
      trace: { steps: [], storageChanges: {}, memoryChanges: [] },
    }))
    const reverted = await app.fetch('/v1/simulate', post({ transaction: { from, to } }))
    expect(reverted.status).toBe(422)
    const { error } = await reverted.json()
    expect(error).toMatchObject({ code: 'SIMULATION_EXECUTION_FAILED', details: { callIndex: 0, revertReason: 'nope', simulation: { gasUsed: '0x6000' } } })
  })
})
