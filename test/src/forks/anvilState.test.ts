/**
 * anvil_dumpState / anvil_loadState in Anvil's format (hex of gzipped JSON, SerializableState),
 * both ways with a real Anvil: a dump Anvil wrote loads into a fork and the fork then reads as
 * Anvil does for every account of the dump; a fork's dump loads into a fresh Anvil, which then
 * reads as the fork does; a fork's dump loads into another fork; a bad dump changes nothing.
 */
import { gunzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { encodeDeployData, type Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { requireAnvil, startAnvil, type AnvilInstance } from '../../support/anvil.js'
import { forkContracts } from './contracts.js'
import { startForkApp, type ForkApp } from './forkApp.js'

const alice = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80')
const CHEATED = '0x1111111111111111111111111111111111111111'
const SLOT = `0x${'7'.padStart(64, '0')}`
const VALUE = `0x${'2a'.padStart(64, '0')}`

type Rpc = (method: string, params?: unknown[]) => Promise<any> // eslint-disable-line @typescript-eslint/no-explicit-any

interface DumpedAccount {
  nonce: number
  balance: Hex
  code: Hex
  storage: Record<Hex, Hex>
}

const decode = (hex: Hex) =>
  JSON.parse(gunzipSync(Buffer.from(hex.slice(2), 'hex')).toString('utf8')) as {
    accounts: Record<string, DumpedAccount>
    block: unknown
    best_block_number: unknown
    blocks: unknown[]
    transactions: unknown[]
  }

/** what a node reads for each account of a dump: balance, nonce, code and the dumped slots */
async function readsOf(rpc: Rpc, accounts: Record<string, DumpedAccount>) {
  const out: Record<string, unknown> = {}
  for (const [address, a] of Object.entries(accounts)) {
    out[address] = {
      balance: await rpc('eth_getBalance', [address, 'latest']),
      nonce: await rpc('eth_getTransactionCount', [address, 'latest']),
      code: await rpc('eth_getCode', [address, 'latest']),
      storage: Object.fromEntries(await Promise.all(Object.keys(a.storage).map(async (s) => [s, await rpc('eth_getStorageAt', [address, s, 'latest'])]))),
    }
  }
  return out
}

/** a few cheats and a deployed contract (storage written by a mined transaction) */
async function changeState(rpc: Rpc): Promise<void> {
  await rpc('anvil_setBalance', [CHEATED, '0x3635c9adc5dea00000'])
  await rpc('anvil_setNonce', [CHEATED, '0x5'])
  await rpc('anvil_setCode', [CHEATED, '0x6001600055'])
  await rpc('anvil_setStorageAt', [CHEATED, SLOT, VALUE])
  const { Token } = forkContracts()
  const nonce = Number(await rpc('eth_getTransactionCount', [alice.address, 'latest']))
  const raw = await alice.signTransaction({
    chainId: 31337,
    type: 'eip1559',
    nonce,
    data: encodeDeployData({ abi: Token.abi, bytecode: Token.bytecode, args: [10n ** 24n] }),
    gas: 3_000_000n,
    maxFeePerGas: 10n ** 11n,
    maxPriorityFeePerGas: 10n ** 9n,
  })
  const hash = await rpc('eth_sendRawTransaction', [raw])
  for (let i = 0; i < 200 && !(await rpc('eth_getTransactionReceipt', [hash])); i++) await new Promise((r) => setTimeout(r, 20))
}

describe("anvil_dumpState / anvil_loadState in Anvil's format", () => {
  const hasAnvil = requireAnvil()
  let app: ForkApp
  let anvil: AnvilInstance
  beforeAll(async () => {
    app = await startForkApp()
  })
  afterAll(async () => {
    await app?.close()
    await anvil?.stop()
  })
  const onFork =
    (forkId: string): Rpc =>
    async (m, p = []) => {
      const a = await app.rpc(forkId, m, p)
      if (a.error) throw new Error(`${m}: ${a.error.message}`)
      return a.result
    }

  it.runIf(hasAnvil)(
    'loads a dump Anvil wrote: the fork reads as Anvil for every account of it',
    async () => {
      anvil = await startAnvil()
      await changeState((m, p) => anvil.rpc(m, p))
      const dump = await anvil.rpc<Hex>('anvil_dumpState')
      const { accounts } = decode(dump)
      expect(accounts[CHEATED]).toMatchObject({ nonce: 5, code: '0x6001600055' })
      expect(Object.keys(accounts).length).toBeGreaterThan(10)

      const fork = await app.createFork()
      const rpc = onFork(fork.forkId)
      expect(await rpc('anvil_loadState', [dump])).toBe(true)
      expect(await readsOf(rpc, accounts)).toEqual(await readsOf((m, p) => anvil.rpc(m, p), accounts))
      await anvil.stop()
    },
    120_000,
  )

  it.runIf(hasAnvil)(
    'writes a dump a fresh Anvil loads: Anvil then reads as the fork',
    async () => {
      const fork = await app.createFork()
      const rpc = onFork(fork.forkId)
      await changeState(rpc)
      const dump = (await rpc('anvil_dumpState')) as Hex
      expect(dump.slice(0, 6)).toBe('0x1f8b')
      const state = decode(dump)
      expect(state).toMatchObject({ block: null, best_block_number: Number(await rpc('eth_blockNumber')), blocks: [], transactions: [] })
      // what the fork changed: the cheated account, the sender, the new contract, the fee recipient
      expect(state.accounts[CHEATED]).toEqual({ nonce: 5, balance: '0x3635c9adc5dea00000', code: '0x6001600055', storage: { [SLOT]: VALUE } })
      expect(state.accounts[alice.address.toLowerCase()]).toBeDefined()
      const token = Object.entries(state.accounts).find(([, a]) => a.code.length > 1000)
      expect(token, 'the deployed token').toBeDefined()
      expect(Object.keys(token![1].storage).length).toBeGreaterThan(0)

      anvil = await startAnvil()
      expect(await anvil.rpc('anvil_loadState', [dump])).toBe(true)
      expect(await readsOf((m, p) => anvil.rpc(m, p), state.accounts)).toEqual(await readsOf(rpc, state.accounts))

      // and another fork loads it as well
      const other = onFork((await app.createFork()).forkId)
      expect(await other('anvil_loadState', [dump])).toBe(true)
      expect(await readsOf(other, state.accounts)).toEqual(await readsOf(rpc, state.accounts))
    },
    120_000,
  )

  it('refuses a dump it cannot read, and the fork is unchanged', async () => {
    const fork = await app.createFork()
    const before = await app.rpc(fork.forkId, 'anvil_dumpState')
    for (const bad of ['0x1f8b0000', '0x7b7d', { accounts: { '0x12': {} } }, { accounts: { [CHEATED]: { nonce: 'five' } } }]) {
      const answer = await app.rpc(fork.forkId, 'anvil_loadState', [bad])
      expect(answer.error?.code, JSON.stringify(bad)).toBe(-32602)
      expect(answer.error?.message).toMatch(/^invalid argument 0: /)
    }
    expect((await app.rpc(fork.forkId, 'anvil_dumpState')).result).toBe(before.result)
    // plain JSON (not gzipped) as hex, and the object itself, load as well
    const plain = `0x${Buffer.from(JSON.stringify({ accounts: { [CHEATED]: { nonce: 1, balance: '0x7', code: '0x', storage: {} } } })).toString('hex')}`
    expect((await app.rpc(fork.forkId, 'anvil_loadState', [plain])).result).toBe(true)
    expect((await app.rpc(fork.forkId, 'eth_getBalance', [CHEATED, 'latest'])).result).toBe('0x7')
    expect((await app.rpc(fork.forkId, 'anvil_loadState', [{ accounts: { [CHEATED]: { balance: '0x8' } } }])).result).toBe(true)
    expect((await app.rpc(fork.forkId, 'eth_getBalance', [CHEATED, 'latest'])).result).toBe('0x8')
  }, 60_000)
})
