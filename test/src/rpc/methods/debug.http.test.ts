/**
 * The debug_* methods through the real endpoint (POST /v1/rpc on the devnet): in a batch, each
 * answered on its own — a trace, an engine failure as geth's -32000, a bad param as -32602.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startRpcApp, type RpcApp } from '../rpcApp.js'

const BLOCK4_TX1 = '0xdfc2c5c9fea5f9d7bc4ed8a0e7300b5da54dd6a339a5fca1bb6b195fc3efbc01'

describe('debug_* through POST /v1/rpc', () => {
  let app: RpcApp
  beforeAll(async () => {
    app = await startRpcApp()
  })
  afterAll(() => app?.close())

  it("answers a batch of traces and failures item by item, with geth's codes and words", async () => {
    const { status, json } = await app.rpc([
      { jsonrpc: '2.0', id: 1, method: 'debug_traceTransaction', params: [BLOCK4_TX1, { tracer: 'callTracer', tracerConfig: { withLog: true } }] },
      { jsonrpc: '2.0', id: 'b', method: 'debug_traceBlockByNumber', params: ['0x0'] },
      { jsonrpc: '2.0', id: 3, method: 'debug_traceCall', params: [{ to: '0x5fbdb2315678afecb367f032d93f642f64180aa3' }, 'pending'] },
      { jsonrpc: '2.0', id: 4, method: 'debug_traceTransaction', params: [BLOCK4_TX1, { tracer: 'callTracer', timeout: 5 }] },
      { jsonrpc: '2.0', id: 5, method: 'debug_traceBlockByNumber', params: ['0x4', { tracer: '4byteTracer' }] },
    ])
    expect(status).toBe(200)
    const byId = Object.fromEntries((json as { id: unknown }[]).map((r) => [String(r.id), r]))
    expect(byId['1']).toMatchObject({ result: { type: 'CALL', logs: [{ index: '0x1' }] } })
    expect(byId.b).toMatchObject({ error: { code: -32000, message: 'genesis is not traceable' } })
    expect(byId['3']).toMatchObject({ error: { code: -32000, message: 'tracing on top of pending is not supported' } })
    expect(byId['4']).toMatchObject({ error: { code: -32602, message: 'invalid argument 1: timeout: expected a duration string such as "10s", got number' } })
    expect(byId['5']).toMatchObject({
      result: [
        { txHash: '0x8849d23607d7c87b58414fda583340f2c2b6393f2461223972e42e81c7fda23b', result: { '0xa9059cbb-64': 1 } },
        { txHash: BLOCK4_TX1, result: { '0xa9059cbb-64': 1 } },
      ],
    })
  })
})
