/**
 * The fork resource over HTTP: its shapes, listing and deletion, FORK_NOT_FOUND on every route of
 * an unknown, deleted or expired fork, the expiry moved forward by use, and the configured caps
 * (forks.max_forks, forks.max_blocks) as clear errors that lose nothing already in the fork.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createWalletClient, http, type Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { foundry } from 'viem/chains'
import { startForkApp, type ForkApp } from './forkApp.js'

const account = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80')
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe('the fork resource', () => {
  let app: ForkApp
  beforeAll(async () => {
    app = await startForkApp({ env: { FORKS_MAX_FORKS: '4', FORKS_MAX_BLOCKS: '2' } })
  })
  afterAll(async () => app?.close())

  it('creates, reads, lists and deletes a fork; a deleted fork is FORK_NOT_FOUND everywhere', async () => {
    const created = await app.request('POST', '/v1/forks', { blockNumber: '0x4', label: 'ci', ttlSeconds: 600 })
    expect(created.status).toBe(201)
    const f = created.json.data
    expect(f.forkId).toMatch(/^fork_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    expect(f).toMatchObject({ chainId: 31337, forkBlockNumber: '0x4', headBlockNumber: '0x4', label: 'ci', rpcUrl: `${app.url}/v1/forks/${f.forkId}/rpc` })
    expect(Date.parse(f.expiresAt) - Date.parse(f.createdAt)).toBe(600_000)
    expect(f.transactionCount).toBeUndefined()

    const got = await app.request('GET', `/v1/forks/${f.forkId}`)
    expect(got.json.data).toMatchObject({ forkId: f.forkId, transactionCount: 0, headBlockNumber: '0x4' })
    const list = await app.request('GET', '/v1/forks')
    expect(list.json.data.map((x: { forkId: string }) => x.forkId)).toContain(f.forkId)
    // the fork answers the devnet's history up to its fork point only
    expect((await app.rpc(f.forkId, 'eth_blockNumber')).result).toBe('0x4')

    expect((await app.request('DELETE', `/v1/forks/${f.forkId}`)).status).toBe(200)
    for (const res of [await app.request('GET', `/v1/forks/${f.forkId}`), await app.request('DELETE', `/v1/forks/${f.forkId}`)]) {
      expect(res.status).toBe(404)
      expect(res.json.error.code).toBe('FORK_NOT_FOUND')
    }
    const rpc = await app.rpc(f.forkId, 'eth_blockNumber')
    expect(rpc.status).toBe(404)
    expect(rpc.error!.message).toMatch(/not found/)
    // named as its REST answer names it, in the error's data
    expect((rpc.error as { data?: { code?: string } }).data?.code).toBe('FORK_NOT_FOUND')
    expect((await app.request('GET', '/v1/forks/fork_not-a-fork')).json.error.code).toBe('FORK_NOT_FOUND')
  })

  it('defaults to latest with an empty body; refuses bad bodies and blocks past the head', async () => {
    const res = await fetch(`${app.url}/v1/forks`, { method: 'POST', headers: { authorization: `Bearer ${app.config.api.auth_token}` } })
    expect(res.status).toBe(201)
    const data = ((await res.json()) as { data: { forkBlockNumber: string; forkId: string } }).data
    expect(data.forkBlockNumber).toBe('0x6')
    await app.request('DELETE', `/v1/forks/${data.forkId}`)
    for (const body of [{ blockTag: 'pending' }, { ttlSeconds: 0 }, { blockNumber: '0x4', blockTag: 'latest' }, { extra: 1 }]) {
      const bad = await app.request('POST', '/v1/forks', body)
      expect(bad.status).toBe(400)
      expect(bad.json.error.code).toBe('VALIDATION_ERROR')
    }
    const far = await app.request('POST', '/v1/forks', { blockNumber: '0x99' })
    expect(far.status).toBe(404)
    expect(far.json.error.code).toBe('BLOCK_NOT_FOUND')
  })

  it('moves the expiry forward on use and forgets a fork left unused past its TTL', async () => {
    const { forkId, data } = await app.createFork({ ttlSeconds: 2 })
    await sleep(1200)
    const used = await app.request('GET', `/v1/forks/${forkId}`)
    expect(Date.parse(used.json.data.expiresAt)).toBeGreaterThan(Date.parse(data.expiresAt))
    await sleep(1200)
    // 2.4 s after creation: alive, because it was used
    expect((await app.rpc(forkId, 'eth_blockNumber')).result).toBe('0x6')
    await sleep(2300)
    expect((await app.request('GET', `/v1/forks/${forkId}`)).status).toBe(404)
  }, 20_000)

  it('refuses a fork past forks.max_forks and a block past forks.max_blocks, keeping what the fork has', async () => {
    const live = (await app.request('GET', '/v1/forks')).json.data.length
    const made = []
    for (let i = live; i < 4; i++) made.push(await app.createFork())
    const over = await app.request('POST', '/v1/forks', {})
    expect(over.status).toBe(409)
    expect(over.json.error.code).toBe('FORK_LIMIT_REACHED')

    const fork = made[0] ?? (await app.createFork())
    const wallet = createWalletClient({ account, chain: foundry, transport: http(fork.rpcUrl) })
    await wallet.sendTransaction({ to: account.address, value: 1n })
    await wallet.sendTransaction({ to: account.address, value: 1n })
    await expect(wallet.sendTransaction({ to: account.address, value: 1n })).rejects.toThrow(/forks\.max_blocks/)
    expect((await app.rpc(fork.forkId, 'eth_blockNumber')).result).toBe('0x8')
    expect((await app.request('GET', `/v1/forks/${fork.forkId}`)).json.data.transactionCount).toBe(2)
    for (const m of made) await app.request('DELETE', `/v1/forks/${m.forkId}`)
  }, 30_000)
})

describe("bad input on a fork: the node's error, the fork unchanged", () => {
  let app: ForkApp
  let forkId: string
  let rpcUrl: string
  beforeAll(async () => {
    app = await startForkApp()
    ;({ forkId, rpcUrl } = await app.createFork())
    const wallet = createWalletClient({ account, chain: foundry, transport: http(rpcUrl) })
    await wallet.sendTransaction({ to: '0x000000000000000000000000000000000000dEaD', value: 1n })
  })
  afterAll(async () => app?.close())

  async function snapshotOf() {
    const [head, balance, nonce, fork] = await Promise.all([
      app.rpc(forkId, 'eth_blockNumber'),
      app.rpc(forkId, 'eth_getBalance', [account.address, 'latest']),
      app.rpc(forkId, 'eth_getTransactionCount', [account.address, 'pending']),
      app.request('GET', `/v1/forks/${forkId}`),
    ])
    return { head: head.result, balance: balance.result, nonce: nonce.result, count: fork.json.data.transactionCount }
  }

  async function signed(fields: Record<string, unknown>): Promise<Hex> {
    const nonce = BigInt((await app.rpc(forkId, 'eth_getTransactionCount', [account.address, 'latest'])).result)
    return account.signTransaction({
      chainId: 31337,
      type: 'eip1559',
      nonce: Number(nonce),
      to: '0x000000000000000000000000000000000000dEaD',
      value: 1n,
      gas: 21000n,
      maxFeePerGas: 10n ** 10n,
      maxPriorityFeePerGas: 10n ** 9n,
      ...fields,
    } as never)
  }

  it.each([
    ['a used nonce', async () => signed({ nonce: 0 }), /^nonce too low: next nonce \d+, tx nonce 0$/],
    ['too little balance', async () => signed({ value: 10n ** 30n }), /^insufficient funds for gas \* price \+ value: balance \d+, tx cost \d+, overshot \d+$/],
    ['a wrong chain id', async () => signed({ chainId: 1 }), /^invalid sender: invalid chain id for signer: have 1 want 31337$/],
    ['too little gas', async () => signed({ gas: 20000n }), /^intrinsic gas too low: gas 20000, minimum needed 21000$/],
    ['a fee cap under the base fee', async () => signed({ maxFeePerGas: 1n, maxPriorityFeePerGas: 1n }), /^max fee per gas less than block base fee/],
    [
      'a bad signature',
      async () => {
        const raw = await signed({})
        // the s value's last byte changed: another (or no) sender recovers
        return `${raw.slice(0, -2)}${raw.endsWith('00') ? '01' : '00'}` as Hex
      },
      /^invalid sender|^nonce too low|^insufficient funds/,
    ],
    ['a blob transaction', async () => '0x03f8' as Hex, /blob transactions/],
  ])('eth_sendRawTransaction with %s', async (_name, make, message) => {
    const before = await snapshotOf()
    const answer = await app.rpc(forkId, 'eth_sendRawTransaction', [await make()])
    expect(answer.error?.code).toBe(-32000)
    expect(answer.error?.message).toMatch(message)
    expect(await snapshotOf()).toEqual(before)
  })

  it('an unknown snapshot id is false (Anvil), a malformed one an invalid argument; the fork unchanged', async () => {
    const before = await snapshotOf()
    expect((await app.rpc(forkId, 'evm_revert', ['0x99'])).result).toBe(false)
    expect((await app.rpc(forkId, 'evm_revert', ['nope'])).error?.code).toBe(-32602)
    expect(await snapshotOf()).toEqual(before)
  })

  it('a method a fork does not serve is -32601; the fork unchanged', async () => {
    const before = await snapshotOf()
    for (const method of ['anvil_setChainId', 'eth_sign', 'admin_peers', 'eth_newFilter']) {
      const answer = await app.rpc(forkId, method, [])
      expect(answer.error).toEqual({ code: -32601, message: `the method ${method} does not exist/is not available` })
    }
    expect(await snapshotOf()).toEqual(before)
  })

  it('eth_sendTransaction from an account neither impersonated nor a dev account is refused; the fork unchanged', async () => {
    const before = await snapshotOf()
    const answer = await app.rpc(forkId, 'eth_sendTransaction', [{ from: '0x1111111111111111111111111111111111111111', to: account.address, value: '0x1' }])
    expect(answer.error?.message).toBe('No Signer available for 0x1111111111111111111111111111111111111111')
    expect(await snapshotOf()).toEqual(before)
  })
})
