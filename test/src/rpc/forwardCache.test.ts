/**
 * Forwarded reads on a fork, counted at the upstream (a counting proxy in front of a real Anvil):
 * an answer that cannot change any more (by block hash, or about a block deeper than the reorg
 * depth below the head) is asked upstream once and then served from the cache store; an answer
 * near the head, or at a tag, is asked every time; state reads at a block come from the fork
 * cache; nothing outside the allow-list reaches the upstream, whatever it is called.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Hex } from 'viem'
import { requireAnvil, startAnvil, DEV_ACCOUNTS, type AnvilInstance } from '../../support/anvil.js'
import { startCountingProxy, type CountingProxy } from '../../support/countingProxy.js'
import { startRpcApp, type RpcApp } from './rpcApp.js'

const hasAnvil = requireAnvil()
let anvil: AnvilInstance
let proxy: CountingProxy
let app: RpcApp
let tx: Hex

beforeAll(async () => {
  if (!hasAnvil) return
  anvil = await startAnvil()
  tx = await anvil.rpc<Hex>('eth_sendTransaction', [{ from: DEV_ACCOUNTS[0], to: DEV_ACCOUNTS[1], value: '0x1' }])
  // 100 blocks on top: block 1 is deeper than the reorg depth (64)
  await anvil.rpc('anvil_mine', ['0x64'])
  proxy = await startCountingProxy(anvil.url)
  app = await startRpcApp({ rpcUrl: proxy.url })
}, 120_000)
afterAll(async () => {
  await app?.close()
  await proxy?.close()
  await anvil?.stop()
})

async function twice(method: string, params: unknown[]) {
  proxy.reset()
  const first = await app.call(method, params)
  const second = await app.call(method, params)
  expect(second).toEqual(first)
  expect(first).toEqual(await anvil.rpc(method, params))
  return proxy.counts()[method] ?? 0
}

describe.runIf(hasAnvil)('what reaches the upstream', () => {
  it('asks a deep block, its receipts and a deep transaction once', async () => {
    expect(await twice('eth_getBlockByNumber', ['0x1', true])).toBe(1)
    expect(await twice('eth_getBlockReceipts', ['0x1'])).toBe(1)
    expect(await twice('eth_getTransactionReceipt', [tx])).toBe(1)
    expect(await twice('eth_getLogs', [{ fromBlock: '0x0', toBlock: '0x2' }])).toBe(1)
    const hash = ((await anvil.rpc('eth_getBlockByNumber', ['0x60', false])) as { hash: Hex }).hash
    expect(await twice('eth_getBlockByHash', [hash, false])).toBe(1)
  })

  it('asks near the head and at tags every time, with nothing else', async () => {
    expect(await twice('eth_getBlockByNumber', ['0x60', false])).toBe(2)
    expect(await twice('eth_getBlockByNumber', ['latest', false])).toBe(2)
    expect(await twice('eth_blockNumber', [])).toBe(2)
    expect(await twice('eth_gasPrice', [])).toBe(2)
    expect(proxy.total()).toBe(2)
  })

  it('reads state at a block from the fork cache: once upstream, whatever the method', async () => {
    proxy.reset()
    await twice('eth_getBalance', [DEV_ACCOUNTS[1], '0x10'])
    await twice('eth_getTransactionCount', [DEV_ACCOUNTS[1], '0x10'])
    const upstream = proxy.counts()
    // one account read served balance and nonce twice each (geth-style getProof or the three plain reads, once)
    expect((upstream.eth_getBalance ?? 0) + (upstream.eth_getProof ?? 0)).toBeLessThanOrEqual(1)
    expect(upstream.eth_getTransactionCount ?? 0).toBeLessThanOrEqual(1)
  })

  it('answers eth_chainId itself', async () => {
    expect(await twice('eth_chainId', [])).toBe(0)
  })

  it('never forwards an unknown, sending or admin method', async () => {
    proxy.reset()
    for (const m of [
      'eth_sendRawTransaction',
      'eth_sendTransaction',
      'anvil_setBalance',
      'evm_mine',
      'eth_newFilter',
      'eth_subscribe',
      'debug_setHead',
      'made_up',
    ]) {
      const { json } = await app.rpc({ jsonrpc: '2.0', id: 1, method: m, params: [] })
      expect(json.error.code).toBe(-32601)
    }
    expect(proxy.requests()).toBe(0)
  })
})

describe.runIf(hasAnvil)('an upstream URL with a key in it', () => {
  it('never appears in an answer or a log line, also when the upstream is gone', async () => {
    const secret = 'k3y-0f-the-provider-9a8b7c'
    const own = await startCountingProxy(anvil.url)
    const keyed = await startRpcApp({ rpcUrl: `${own.url}/v2/${secret}` })
    try {
      expect(await keyed.call('eth_blockNumber')).toBe(await anvil.rpc('eth_blockNumber'))
      const refused = await keyed.rpc({ jsonrpc: '2.0', id: 1, method: 'eth_getBlockByNumber', params: ['0xzz', false] })
      expect(refused.json.error.code).toBe(-32602)
      await own.close()
      const gone = await keyed.rpc({ jsonrpc: '2.0', id: 2, method: 'eth_gasPrice', params: [] })
      expect(gone.json.error.code).toBe(-32000)
      expect(gone.json.error.message).toMatch(/^upstream RPC /)
      for (const text of [refused.text, gone.text, keyed.rawLogs()]) {
        expect(text).not.toContain(secret)
        expect(text).not.toContain(own.url)
      }
    } finally {
      await keyed.close()
    }
  }, 60_000)
})
