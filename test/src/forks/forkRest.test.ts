/**
 * The REST endpoints on a fork run on the fork's head and its own blocks, with the bodies of
 * their /v1/ twins, and never change the fork; an unknown fork is 404 FORK_NOT_FOUND.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPublicClient, createWalletClient, http, type Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { foundry } from 'viem/chains'
import { startForkApp, type ForkApp } from './forkApp.js'

const alice = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80')
const SINK = '0x000000000000000000000000000000000000beef'

describe('REST on a fork', () => {
  let app: ForkApp
  let forkId: string
  let minedHash: Hex
  beforeAll(async () => {
    app = await startForkApp()
    const fork = await app.createFork()
    forkId = fork.forkId
    const wallet = createWalletClient({ account: alice, chain: foundry, transport: http(fork.rpcUrl) })
    minedHash = await wallet.sendTransaction({ to: SINK, value: 5n })
    await createPublicClient({ chain: foundry, transport: http(fork.rpcUrl) }).waitForTransactionReceipt({ hash: minedHash })
  })
  afterAll(async () => app?.close())

  const state = async () => ({
    head: (await app.rpc(forkId, 'eth_blockNumber')).result,
    sink: (await app.rpc(forkId, 'eth_getBalance', [SINK, 'latest'])).result,
    count: (await app.request('GET', `/v1/forks/${forkId}`)).json.data.transactionCount,
  })

  it('simulates on the fork head (what the fork mined is there) and leaves the fork as it was', async () => {
    const before = await state()
    expect(before.sink).toBe('0x5')
    const res = await app.request('POST', `/v1/forks/${forkId}/simulate`, {
      params: { calls: [{ from: alice.address, to: SINK, value: '0x7' }], traceAssetChanges: true },
    })
    expect(res.status, JSON.stringify(res.json)).toBe(200)
    expect(res.json.data.blockNumber).toBe(before.head)
    const change = res.json.data.assetChanges.find((a: { account: string }) => a.account === SINK)
    expect(change).toMatchObject({ before: '0x5', after: '0xc' })
    const batch = await app.request('POST', `/v1/forks/${forkId}/simulate/batch`, [{ params: { calls: [{ from: alice.address, to: SINK, value: '0x1' }] } }])
    expect(batch.status, JSON.stringify(batch.json)).toBe(200)
    const list = await app.request('POST', `/v1/forks/${forkId}/simulate/access-list`, { params: { from: alice.address, to: SINK, value: '0x1' } })
    expect(list.status, JSON.stringify(list.json)).toBe(200)
    expect(await state()).toEqual(before)
  })

  it('previews approvals and warnings on the fork as on the chain it forked', async () => {
    const DEMO = '0x5fbdb2315678afecb367f032d93f642f64180aa3'
    const bob = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8'
    const approveAll = `0x095ea7b3${bob.slice(2).padStart(64, '0')}${'f'.repeat(64)}`
    const take = `0x23b872dd${alice.address.slice(2).toLowerCase().padStart(64, '0')}${bob.slice(2).padStart(64, '0')}${(15n * 10n ** 17n).toString(16).padStart(64, '0')}`
    const body = {
      params: {
        account: alice.address.toLowerCase(),
        traceAssetChanges: true,
        calls: [
          { from: alice.address, to: DEMO, data: approveAll },
          { from: bob, to: DEMO, data: take },
        ],
      },
    }
    const onFork = await app.request('POST', `/v1/forks/${forkId}/simulate`, body)
    const onChain = await app.request('POST', '/v1/simulate', body)
    expect(onFork.status, JSON.stringify(onFork.json)).toBe(200)
    expect(onFork.json.data.approvalChanges).toEqual(onChain.json.data.approvalChanges)
    expect(onFork.json.data.warnings).toEqual(onChain.json.data.warnings)
    expect(onFork.json.data.warnings.map((w: { code: string }) => w.code)).toEqual(['UNLIMITED_APPROVAL', 'APPROVAL_TO_EOA', 'ASSETS_OUT_NOTHING_IN'])
    const demo = (changes: { token?: string }[]) => changes.filter((c) => c.token === DEMO)
    expect(demo(onFork.json.data.assetChanges)).toHaveLength(1)
    expect(demo(onFork.json.data.assetChanges)).toEqual(demo(onChain.json.data.assetChanges))
  })

  it('traces a transaction the fork mined, and calls on its head', async () => {
    const before = await state()
    const tx = await app.request('POST', `/v1/forks/${forkId}/trace/tx`, { transactionHash: minedHash, tracerConfig: { callTracer: {} } })
    expect(tx.status).toBe(200)
    expect(JSON.stringify(tx.json)).toContain(SINK)
    const call = await app.request('POST', `/v1/forks/${forkId}/trace/call`, {
      call: { from: alice.address, to: SINK, value: '0x1' },
      tracerConfig: { callTracer: {} },
    })
    expect(call.status, JSON.stringify(call.json)).toBe(200)
    // the upstream (here the devnet) knows nothing of the fork's transaction
    expect((await app.request('POST', '/v1/trace/tx', { transactionHash: minedHash, tracerConfig: { callTracer: {} } })).status).toBe(404)
    expect(await state()).toEqual(before)
  })

  it('answers 404 FORK_NOT_FOUND for an unknown fork', async () => {
    const res = await app.request('POST', '/v1/forks/fork_00000000-0000-4000-8000-000000000000/simulate', {
      params: { calls: [{ from: alice.address, to: SINK }] },
    })
    expect(res.status).toBe(404)
    expect(res.json.error.code).toBe('FORK_NOT_FOUND')
  })
})
