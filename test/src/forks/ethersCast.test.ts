/**
 * ethers v6 and Foundry's cast pointed at a fork, unmodified: ContractFactory.deploy and
 * tx.wait(); `cast send`, `cast send --create`, `cast receipt` and `cast run` of a transaction the
 * fork mined — on a fork of the embedded devnet and on a fork of a real Anvil.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ContractFactory, JsonRpcProvider, Wallet, type Contract } from 'ethers'
import type { Hex } from 'viem'
import { requireAnvil, startAnvil, type AnvilInstance } from '../../support/anvil.js'
import { cast, requireCast } from '../../support/cast.js'
import { forkContracts } from './contracts.js'
import { startForkApp, type ForkApp } from './forkApp.js'

const KEY: Hex = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'
const OTHER = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8'
const { Token } = forkContracts()

async function ethersFlow(app: ForkApp) {
  const fork = await app.createFork()
  const provider = new JsonRpcProvider(fork.rpcUrl, undefined, { staticNetwork: true, cacheTimeout: -1, pollingInterval: 50 })
  const wallet = new Wallet(KEY, provider)
  const factory = new ContractFactory(Token.abi as never, Token.bytecode, wallet)
  const token = (await factory.deploy(10n ** 24n)) as Contract
  await token.waitForDeployment()
  const address = await token.getAddress()
  expect(await provider.getCode(address)).toBe(Token.deployedBytecode)
  const tx = await token.getFunction('transfer')(OTHER, 1234n)
  const receipt = await tx.wait()
  expect(receipt!.status).toBe(1)
  expect(receipt!.logs).toHaveLength(1)
  expect(await token.getFunction('balanceOf')(OTHER)).toBe(1234n)
  provider.destroy()
}

async function castFlow(app: ForkApp) {
  const fork = await app.createFork()
  const rpc = ['--rpc-url', fork.rpcUrl]
  const created = JSON.parse(await cast(['send', '--private-key', KEY, '--json', ...rpc, '--create', Token.bytecode, 'constructor(uint256)', '1000000']))
  expect(created.status).toBe('0x1')
  const token = created.contractAddress as string
  const sent = JSON.parse(await cast(['send', '--private-key', KEY, token, 'transfer(address,uint256)', OTHER, '77', '--json', ...rpc]))
  expect(sent.status).toBe('0x1')
  const receipt = JSON.parse(await cast(['receipt', sent.transactionHash, '--json', ...rpc]))
  expect(receipt.blockNumber).toBe(sent.blockNumber)
  expect(receipt.logs).toHaveLength(1)
  expect(await cast(['call', token, 'balanceOf(address)(uint256)', OTHER, ...rpc])).toBe('77')
  // cast run replays the fork-mined transaction through debug_traceTransaction and the fork's blocks
  const run = await cast(['run', sent.transactionHash, ...rpc], { timeoutMs: 120_000 })
  expect(run).toMatch(/Transaction successfully executed/)
  expect(run.toLowerCase()).toContain(token.slice(2, 10).toLowerCase())
}

describe('ethers and cast on a fork of the embedded devnet', () => {
  const hasCast = requireCast()
  let app: ForkApp
  beforeAll(async () => {
    app = await startForkApp()
  })
  afterAll(async () => app?.close())

  it('ethers v6: ContractFactory.deploy and tx.wait()', async () => ethersFlow(app), 60_000)
  it.runIf(hasCast)('cast: send --create, send, receipt, run', async () => castFlow(app), 180_000)
})

describe('ethers and cast on a fork of a real Anvil', () => {
  const ready = requireAnvil() && requireCast()
  let anvil: AnvilInstance
  let app: ForkApp
  beforeAll(async () => {
    if (!ready) return
    anvil = await startAnvil()
    app = await startForkApp({ rpcUrl: anvil.url })
  }, 60_000)
  afterAll(async () => {
    await app?.close()
    await anvil?.stop()
  })

  it.runIf(ready)('ethers v6: ContractFactory.deploy and tx.wait()', async () => ethersFlow(app), 60_000)
  it.runIf(ready)('cast: send --create, send, receipt, run', async () => castFlow(app), 180_000)
})
