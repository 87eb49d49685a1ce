/**
 * The same wallet preview wherever it runs: in process and in two worker threads, cold (a block
 * nothing has read) and warm, on a fork of a real Anvil; and what a cold preview costs upstream.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { encodeFunctionData, type Address, type Hex } from 'viem'
import { createMemoryCacheStore } from '../../../host/cache/memoryCacheStore.js'
import { startWorkerPool, type WorkerPoolEngine } from '../../../host/workers/index.js'
import { createEngine, type Engine } from '../../../engine/index.js'
import type { SimulateParams, SimulationResult } from '../../../engine/types.js'
import { requireAnvil } from '../../support/anvil.js'
import { startCountingProxy, type CountingProxy } from '../../support/countingProxy.js'
import { A, B, C, MAX, startPreviewChain, type PreviewChain } from './previewChain.js'
import { ON_CHAIN } from '../../../engine/types.js'

let chain: PreviewChain
let pool: WorkerPoolEngine
let proxy: CountingProxy
let counted: Engine

const params = (block: bigint): SimulateParams => {
  const tx = (from: Address, to: Address, name: string, fn: string, args: unknown[]) => ({
    from,
    to,
    data: encodeFunctionData({ abi: chain.abi(name), functionName: fn, args }) as Hex,
  })
  const { at } = chain
  return {
    calls: [
      tx(A, at.permitToken!, 'PermitToken', 'approve', [B, MAX]),
      tx(B, at.permitToken!, 'PermitToken', 'transferFrom', [A, C, 10n ** 18n]),
      tx(A, at.nft!, 'Nft', 'setApprovalForAll', [at.puller, true]),
      tx(A, at.permit2!, 'Permit2', 'approve', [at.usdt, B, 5_000_000n, 3_000_000_000]),
      tx(A, at.proxy!, 'Proxy1967', 'upgradeTo', [at.counter2]),
    ],
    block: { number: block },
    validation: false,
    traceAssetChanges: true,
    traceTransfers: true,
  }
}
const strip = (r: SimulationResult) => ({ ...r, simulationId: undefined })

describe.runIf(requireAnvil())('wallet preview in process, in worker threads, cold and warm', () => {
  beforeAll(async () => {
    chain = await startPreviewChain()
    pool = await startWorkerPool({
      rpcUrl: chain.anvil.url,
      cache: createMemoryCacheStore(),
      gasCap: 30_000_000n,
      rpcTimeoutMs: 5_000,
      maxStructLogSteps: 10_000,
      simulationTtlSeconds: 60,
      workers: 2,
      cacheUrl: 'memory://',
    })
    proxy = await startCountingProxy(chain.anvil.url)
    counted = await createEngine({
      rpcUrl: proxy.url,
      cache: createMemoryCacheStore(),
      gasCap: 30_000_000n,
      rpcTimeoutMs: 5_000,
      maxStructLogSteps: 10_000,
      simulationTtlSeconds: 60,
    })
  }, 120_000)
  afterAll(async () => {
    await pool?.close()
    await counted?.close()
    await proxy?.close()
    await chain?.close()
  })

  it('approvals, asset changes and warnings are identical cold and warm, in process and in both workers', async () => {
    await chain.anvil.rpc('evm_mine')
    const block = BigInt(await chain.anvil.rpc<Hex>('eth_blockNumber'))
    const p = params(block)
    const coldHere = await chain.engine.simulate(ON_CHAIN, p)
    const [coldPool, other] = await Promise.all([pool.simulate(ON_CHAIN, p), pool.simulate(ON_CHAIN, p)])
    const [warmHere, warmPool] = await Promise.all([chain.engine.simulate(ON_CHAIN, p), pool.simulate(ON_CHAIN, p)])
    for (const r of [coldPool, other, warmHere, warmPool]) expect(strip(r)).toEqual(strip(coldHere))
    expect(coldHere.approvalChanges!.map((c) => c.type)).toEqual(['erc20', 'erc721-all', 'permit2'])
    expect(coldHere.warnings!.map((w) => w.code).sort()).toEqual([
      'APPROVAL_FOR_ALL',
      'APPROVAL_TO_EOA',
      'APPROVAL_TO_EOA',
      'ASSETS_OUT_NOTHING_IN',
      'PERMIT2_APPROVAL',
      'PROXY_UPGRADED',
      'UNLIMITED_APPROVAL',
    ])
  })

  it('a signature preview is identical in process and in a worker', async () => {
    const typedData = {
      types: {
        PermitTransferFrom: [
          { name: 'permitted', type: 'TokenPermissions' },
          { name: 'spender', type: 'address' },
          { name: 'nonce', type: 'uint256' },
          { name: 'deadline', type: 'uint256' },
        ],
        TokenPermissions: [
          { name: 'token', type: 'address' },
          { name: 'amount', type: 'uint256' },
        ],
      },
      primaryType: 'PermitTransferFrom',
      domain: { name: 'Permit2', chainId: 31337, verifyingContract: chain.at.permit2 },
      message: { permitted: { token: chain.at.usdt, amount: '1000000' }, spender: B, nonce: '1', deadline: '4000000000' },
    }
    await chain.send(A, chain.at.usdt!, 'TetherToken', 'approve', [chain.at.permit2, MAX])
    const req = { typedData, signer: A, block: { tag: 'latest' as const } }
    const [here, there] = await Promise.all([chain.engine.previewSignature(ON_CHAIN, req), pool.previewSignature(ON_CHAIN, req)])
    expect(there).toEqual(here)
    expect(here.assetChanges.map((c) => c.formatted)).toEqual(['-1'])
  })

  it('a cold preview costs no round trip more than the same cold simulation without it', async () => {
    const coldRun = async (traceAssetChanges: boolean, calls: number) => {
      await chain.anvil.rpc('evm_mine')
      const block = BigInt(await chain.anvil.rpc<Hex>('eth_blockNumber'))
      const p = { ...params(block), calls: params(block).calls.slice(0, calls), traceTransfers: false, traceAssetChanges }
      proxy.reset()
      const r = await counted.simulate(ON_CHAIN, p)
      return { r, trips: proxy.requests(), counts: JSON.stringify(proxy.counts()) }
    }
    // one approve: the 2 round trips of any cold simulation (block + hints, then the state)
    const one = await coldRun(true, 1)
    expect(one.r.warnings!.map((w) => w.code).sort()).toEqual(['APPROVAL_TO_EOA', 'UNLIMITED_APPROVAL'])
    expect(one.r.approvalChanges![0]!.name).toBe('Permit Token')
    expect(one.trips, one.counts).toBeLessThanOrEqual(2)
    // approve + transferFrom: the second call's hints are taken on the block, where it reverts,
    // so the plain simulation reads more after the run; the preview adds nothing to that
    const preview = await coldRun(true, 2)
    const plain = await coldRun(false, 2)
    expect(preview.r.approvalChanges!.length).toBe(1)
    expect(preview.trips, `${preview.counts} vs ${plain.counts}`).toBeLessThanOrEqual(plain.trips)
  })
})
