/**
 * viem's wallet, public and test clients pointed at a fork, unmodified: deploy, write, wait, read,
 * and the test actions (setBalance, impersonateAccount, mine, snapshot, revert, increaseTime) —
 * on a fork of the embedded devnet and on a fork of a real Anvil.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPublicClient, createTestClient, createWalletClient, http, parseEther, type Address, type Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { foundry } from 'viem/chains'
import { requireAnvil, startAnvil, type AnvilInstance } from '../../support/anvil.js'
import { forkContracts } from './contracts.js'
import { startForkApp, type ForkApp } from './forkApp.js'

const KEY: Hex = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'
const account = privateKeyToAccount(KEY)
const WHALE: Address = '0x1111111111111111111111111111111111111111'
const { Token, Router, Clock } = forkContracts()

function clientsOf(rpcUrl: string) {
  const transport = http(rpcUrl)
  return {
    wallet: createWalletClient({ account, chain: foundry, transport }),
    pub: createPublicClient({ chain: foundry, transport, cacheTime: 0 }),
    test: createTestClient({ mode: 'anvil', chain: foundry, transport }),
    impersonated: createWalletClient({ account: WHALE, chain: foundry, transport }),
  }
}

async function flow(app: ForkApp) {
  const fork = await app.createFork()
  const { wallet, pub, test, impersonated } = clientsOf(fork.rpcUrl)
  const start = await pub.getBlockNumber()
  expect(start).toBe(BigInt(fork.data.forkBlockNumber))

  // deploy, write, wait, read
  const deployHash = await wallet.deployContract({ abi: Token.abi, bytecode: Token.bytecode, args: [10n ** 24n] })
  const deployed = await pub.waitForTransactionReceipt({ hash: deployHash })
  expect(deployed.status).toBe('success')
  expect(deployed.blockNumber).toBe(start + 1n)
  const token = deployed.contractAddress!
  const routerHash = await wallet.deployContract({ abi: Router.abi, bytecode: Router.bytecode, args: [token] })
  const router = (await pub.waitForTransactionReceipt({ hash: routerHash })).contractAddress!
  const sent = await wallet.writeContract({ address: token, abi: Token.abi, functionName: 'transfer', args: [router, 10n ** 21n] })
  const transfer = await pub.waitForTransactionReceipt({ hash: sent })
  expect(transfer.logs).toHaveLength(1)
  expect(await pub.readContract({ address: token, abi: Token.abi, functionName: 'balanceOf', args: [router] })).toBe(10n ** 21n)
  await pub.waitForTransactionReceipt({
    hash: await wallet.writeContract({ address: token, abi: Token.abi, functionName: 'approve', args: [router, 10n ** 20n] }),
  })
  const swap = await pub.waitForTransactionReceipt({
    hash: await wallet.writeContract({ address: router, abi: Router.abi, functionName: 'swap', args: [100n, 99n] }),
  })
  expect(swap.status).toBe('success')
  expect(swap.logs.map((l) => l.address)).toEqual([token, token, router])

  // setBalance, impersonation
  await test.setBalance({ address: WHALE, value: parseEther('5') })
  expect(await pub.getBalance({ address: WHALE })).toBe(parseEther('5'))
  await test.impersonateAccount({ address: WHALE })
  const fromWhale = await impersonated.sendTransaction({ to: account.address, value: parseEther('1') })
  const whaleReceipt = await pub.waitForTransactionReceipt({ hash: fromWhale })
  expect(whaleReceipt.status).toBe('success')
  expect(whaleReceipt.from).toBe(WHALE)
  expect(await pub.getBalance({ address: WHALE })).toBeLessThan(parseEther('4'))
  await test.stopImpersonatingAccount({ address: WHALE })
  await expect(impersonated.sendTransaction({ to: account.address, value: 1n })).rejects.toThrow(/No Signer available/)

  // snapshot and revert
  const before = await pub.getBlockNumber()
  const snap = await test.snapshot()
  await pub.waitForTransactionReceipt({ hash: await wallet.writeContract({ address: token, abi: Token.abi, functionName: 'transfer', args: [WHALE, 5n] }) })
  expect(await pub.readContract({ address: token, abi: Token.abi, functionName: 'balanceOf', args: [WHALE] })).toBe(5n)
  await test.revert({ id: snap })
  expect(await pub.readContract({ address: token, abi: Token.abi, functionName: 'balanceOf', args: [WHALE] })).toBe(0n)
  expect(await pub.getBlockNumber()).toBe(before)

  // mining and time
  await test.mine({ blocks: 3 })
  expect(await pub.getBlockNumber()).toBe(before + 3n)
  const clockHash = await wallet.deployContract({ abi: Clock.abi, bytecode: Clock.bytecode })
  const clock = (await pub.waitForTransactionReceipt({ hash: clockHash })).contractAddress!
  // the fork's clock is the wall clock plus the offset (never behind the parent block), as Anvil's
  const wall = BigInt(Math.floor(Date.now() / 1000))
  await test.increaseTime({ seconds: 3600 })
  await pub.waitForTransactionReceipt({ hash: await wallet.writeContract({ address: clock, abi: Clock.abi, functionName: 'tick' }) })
  const last = (await pub.readContract({ address: clock, abi: Clock.abi, functionName: 'last' })) as bigint
  expect(last).toBeGreaterThanOrEqual(wall + 3600n)
  expect((await pub.getBlock()).timestamp).toBe(last)

  // a failed write is refused with the node's text, the fork unchanged
  const head = await pub.getBlockNumber()
  await expect(wallet.writeContract({ address: router, abi: Router.abi, functionName: 'swap', args: [100n, 100n] })).rejects.toThrow(/slippage/)
  expect(await pub.getBlockNumber()).toBe(head)
  return { fork, token }
}

describe('viem on a fork of the embedded devnet', () => {
  let app: ForkApp
  beforeAll(async () => {
    app = await startForkApp()
  })
  afterAll(async () => app?.close())

  it('deploys, writes, reads and drives the test actions', async () => {
    const { fork } = await flow(app)
    const got = await app.request('GET', `/v1/forks/${fork.forkId}`)
    expect(got.status).toBe(200)
    expect(got.json.data.transactionCount).toBeGreaterThanOrEqual(8)
  }, 120_000)

  it('signs for the dev accounts with eth_sendTransaction, like Anvil', async () => {
    const fork = await app.createFork()
    const dev = createWalletClient({ account: account.address, chain: foundry, transport: http(fork.rpcUrl) })
    const pub = createPublicClient({ chain: foundry, transport: http(fork.rpcUrl), cacheTime: 0 })
    expect(await dev.getAddresses()).toContain(account.address)
    const hash = await dev.sendTransaction({ to: WHALE, value: 7n })
    expect((await pub.waitForTransactionReceipt({ hash })).status).toBe('success')
    expect(await pub.getBalance({ address: WHALE })).toBe(7n)
  }, 60_000)
})

describe('viem on a fork of a real Anvil', () => {
  const hasAnvil = requireAnvil()
  let anvil: AnvilInstance
  let app: ForkApp
  beforeAll(async () => {
    if (!hasAnvil) return
    anvil = await startAnvil()
    app = await startForkApp({ rpcUrl: anvil.url })
  }, 60_000)
  afterAll(async () => {
    await app?.close()
    await anvil?.stop()
  })

  it.runIf(hasAnvil)(
    'deploys, writes, reads and drives the test actions; the upstream is untouched',
    async () => {
      const upstreamHead = await anvil.rpc<Hex>('eth_blockNumber')
      const { token } = await flow(app)
      expect(await anvil.rpc<Hex>('eth_blockNumber')).toBe(upstreamHead)
      expect(await anvil.rpc<Hex>('eth_getCode', [token, 'latest'])).toBe('0x')
    },
    120_000,
  )
})
