/**
 * POST /v1/trace/tx numbers a mined transaction's callTracer logs from the start of its block, as
 * geth v1.17 does (one log counter per block): on the devnet, block 4 holds two DEMO transfers with
 * one Transfer log each (engine/chains/devnet/DEMO.md).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startDevnetApp, type DevnetApp } from '../support/devnetApp.js'

const BLOCK4_TX0 = '0x8849d23607d7c87b58414fda583340f2c2b6393f2461223972e42e81c7fda23b'
const BLOCK4_TX1 = '0xdfc2c5c9fea5f9d7bc4ed8a0e7300b5da54dd6a339a5fca1bb6b195fc3efbc01'

describe('POST /v1/trace/tx log index', () => {
  let app: DevnetApp
  beforeAll(async () => {
    app = await startDevnetApp()
  })
  afterAll(() => app?.close())

  it('counts from the block start: the second transaction of the block logs index 0x1', async () => {
    const trace = async (hash: string) => {
      const res = await app.request('/trace/tx', { transactionHash: hash, tracerConfig: { callTracer: { withLogs: true } } })
      expect(res.status).toBe(200)
      return res.json.data.callTracer.logs.map((l: { index: string }) => l.index)
    }
    expect(await trace(BLOCK4_TX0)).toEqual(['0x0'])
    expect(await trace(BLOCK4_TX1)).toEqual(['0x1'])
  })
})
