/**
 * Differential: one scripted sequence on our fork and on an Anvil forking the same upstream at the
 * same block — fund, deploy an ERC-20 and a router that calls a token deployed upstream before the
 * fork point, transfers, a swap, a revert, snapshot and revert, impersonated sends, time moved —
 * gives the same receipts (status, gasUsed, logs and their bloom, contract addresses, fees), the same state reads
 * and the same callTracer traces (Anvil's deviations from geth undone by test/tracers/gethRules.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { encodeDeployData, encodeFunctionData, type Abi, type Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { requireAnvil, startAnvil, type AnvilInstance } from '../../support/anvil.js'
import { gethCallFrame, type Frame } from '../../tracers/gethRules.js'
import { forkContracts } from './contracts.js'
import { startForkPair, type ForkApp } from './forkApp.js'

const alice = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80')
const bob = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8'
const WHALE = '0x1111111111111111111111111111111111111111'
const { Token, Router, Clock } = forkContracts()
const q = (n: bigint | number) => `0x${n.toString(16)}`

type Rpc = (method: string, params?: unknown[]) => Promise<any> // eslint-disable-line @typescript-eslint/no-explicit-any

/** the script, on one node; what it observed */
async function script(rpc: Rpc, upstreamToken: Hex) {
  const hashes: Hex[] = []
  const chainId = Number(await rpc('eth_chainId'))
  const forkPoint = await rpc('eth_getBlockByNumber', ['latest', false])
  let nonce = Number(await rpc('eth_getTransactionCount', [alice.address, 'latest']))
  // Anvil answers a send before its block is in: wait for the receipt as a client does
  const receipt = async (hash: Hex) => {
    for (let i = 0; i < 500; i++) {
      const r = await rpc('eth_getTransactionReceipt', [hash])
      if (r) return r
      await new Promise((done) => setTimeout(done, 20))
    }
    throw new Error(`no receipt for ${hash} (transaction #${hashes.indexOf(hash)})`)
  }
  const send = async (to: Hex | null, data: Hex, gas = 3_000_000n) => {
    const raw = await alice.signTransaction({
      chainId,
      type: 'eip1559',
      nonce: nonce++,
      ...(to && { to }),
      data,
      gas,
      maxFeePerGas: 10n ** 11n,
      maxPriorityFeePerGas: 10n ** 9n,
    })
    const hash = (await rpc('eth_sendRawTransaction', [raw]).catch((e) => {
      throw new Error(`tx #${hashes.length} nonce ${nonce - 1}: ${e.message}`)
    })) as Hex
    hashes.push(hash)
    await receipt(hash)
    return hash
  }
  const call = (abi: Abi, functionName: string, args: unknown[]) => encodeFunctionData({ abi, functionName, args } as never)

  // a forking Anvil gives its dev accounts 10000 ETH whatever the upstream says; the fork keeps
  // the upstream's balance: set it on both
  await rpc('anvil_setBalance', [alice.address, q(10n ** 22n)])
  await rpc('anvil_setBalance', [bob, q(10n ** 20n)])
  const token = (await receipt(await send(null, encodeDeployData({ abi: Token.abi, bytecode: Token.bytecode, args: [10n ** 24n] })))).contractAddress as Hex
  const router = (await receipt(await send(null, encodeDeployData({ abi: Router.abi, bytecode: Router.bytecode, args: [upstreamToken] }))))
    .contractAddress as Hex
  await send(upstreamToken, call(Token.abi, 'transfer', [router, 10n ** 21n]))
  await send(upstreamToken, call(Token.abi, 'approve', [router, 10n ** 20n]))
  await send(router, call(Router.abi, 'swap', [1000n, 990n]))
  await send(router, call(Router.abi, 'swap', [1000n, 1000n]), 200_000n) // reverts: slippage
  await send(token, call(Token.abi, 'transfer', [bob, 12345n]))
  const beforeSnap = await rpc('eth_getBalance', [alice.address, 'latest'])
  const snap = await rpc('evm_snapshot')
  await send(token, call(Token.abi, 'transfer', [bob, 1n]))
  nonce--
  hashes.pop()
  expect(await rpc('evm_revert', [snap])).toBe(true)
  // Anvil derives the next base fee from the block it reverted away (its fee state is not part of
  // the snapshot); EIP-1559 derives it from the parent, as the fork does: pin it on both
  await rpc('anvil_setNextBlockBaseFeePerGas', ['0x3b9aca00'])
  expect(await rpc('eth_getBalance', [alice.address, 'latest'])).toBe(beforeSnap)
  await rpc('anvil_setBalance', [WHALE, q(10n ** 19n)])
  await rpc('anvil_impersonateAccount', [WHALE])
  const whaleTx = { from: WHALE, to: bob, value: q(10n ** 18n), gas: q(21000), maxFeePerGas: q(10n ** 11n), maxPriorityFeePerGas: q(10n ** 9n), nonce: '0x0' }
  const whaleHash = (await rpc('eth_sendTransaction', [whaleTx])) as Hex
  const clock = (await receipt(await send(null, encodeDeployData({ abi: Clock.abi, bytecode: Clock.bytecode })))).contractAddress as Hex
  await rpc('evm_setNextBlockTimestamp', [q(BigInt(forkPoint.timestamp) + 100_000n)])
  await send(clock, call(Clock.abi, 'tick', []))

  const receipts = await Promise.all([...hashes, whaleHash].map(receipt))
  const traces = []
  for (const h of hashes) traces.push(await rpc('debug_traceTransaction', [h, { tracer: 'callTracer', tracerConfig: { withLog: true } }]))
  const read = (to: Hex, data: Hex) => rpc('eth_call', [{ to, data }, 'latest'])
  const state = {
    upstreamRouter: await read(upstreamToken, call(Token.abi, 'balanceOf', [router])),
    upstreamAlice: await read(upstreamToken, call(Token.abi, 'balanceOf', [alice.address])),
    tokenBob: await read(token, call(Token.abi, 'balanceOf', [bob])),
    clock: await read(clock, call(Clock.abi, 'last', [])),
    code: await rpc('eth_getCode', [router, 'latest']),
    slot0: await rpc('eth_getStorageAt', [clock, '0x0', 'latest']),
    aliceEth: await rpc('eth_getBalance', [alice.address, 'latest']),
    aliceBeforeSnap: beforeSnap,
    whaleEth: await rpc('eth_getBalance', [WHALE, 'latest']),
    bobEth: await rpc('eth_getBalance', [bob, 'latest']),
    aliceNonce: await rpc('eth_getTransactionCount', [alice.address, 'latest']),
  }
  return {
    receipts: receipts.map((r) => ({
      status: r.status,
      gasUsed: r.gasUsed,
      cumulativeGasUsed: r.cumulativeGasUsed,
      effectiveGasPrice: r.effectiveGasPrice,
      contractAddress: r.contractAddress ?? null,
      from: r.from,
      to: r.to,
      logsBloom: r.logsBloom,
      logs: r.logs.map((l: { address: string; topics: string[]; data: string; logIndex: string }) => ({
        address: l.address,
        topics: l.topics,
        data: l.data,
        logIndex: l.logIndex,
      })),
    })),
    traces,
    state,
    gasLimits: await Promise.all(hashes.map(async (h) => BigInt((await rpc('eth_getTransactionByHash', [h])).gas))),
  }
}

describe('a fork against Anvil forking the same upstream at the same block', () => {
  const hasAnvil = requireAnvil()
  let upstream: AnvilInstance
  let anvilFork: AnvilInstance
  let app: ForkApp
  let upstreamToken: Hex
  let forkBlock: Hex
  let pair: Awaited<ReturnType<typeof startForkPair>> | undefined
  beforeAll(async () => {
    if (!hasAnvil) return
    upstream = await startAnvil()
    // a token deployed upstream before the fork point: the fork reads it through the fork cache
    const raw = await alice.signTransaction({
      chainId: 31337,
      type: 'eip1559',
      nonce: 0,
      data: encodeDeployData({ abi: Token.abi, bytecode: Token.bytecode, args: [10n ** 24n] }),
      gas: 3_000_000n,
      maxFeePerGas: 10n ** 11n,
      maxPriorityFeePerGas: 10n ** 9n,
    })
    const hash = await upstream.rpc<Hex>('eth_sendRawTransaction', [raw])
    let mined: { contractAddress: Hex } | null = null
    while (!mined) mined = await upstream.rpc<{ contractAddress: Hex } | null>('eth_getTransactionReceipt', [hash])
    upstreamToken = mined.contractAddress
    await upstream.rpc('evm_mine')
    pair = await startForkPair(upstream)
    ;({ forkBlock, anvilFork, app } = pair)
  }, 60_000)
  afterAll(async () => {
    await pair?.close()
    await upstream?.stop()
  })

  it.runIf(hasAnvil)(
    'gives the same receipts, state reads and callTracer traces',
    async () => {
      const fork = await app.createFork({ blockNumber: forkBlock })
      const ours = await script(async (m, p = []) => {
        if (process.env.FORK_TEST_DEBUG) console.log('ours', m)
        const a = await app.rpc(fork.forkId, m, p)
        if (a.error) throw new Error(`${m}: ${a.error.message}`)
        return a.result
      }, upstreamToken)
      const theirs = await script((m, p) => {
        if (process.env.FORK_TEST_DEBUG) console.log('anvil', m)
        return anvilFork.rpc(m, p)
      }, upstreamToken)

      expect(ours.receipts.map((r) => r.status)).toEqual(['0x1', '0x1', '0x1', '0x1', '0x1', '0x0', '0x1', '0x1', '0x1', '0x1'])
      expect(ours.receipts).toEqual(theirs.receipts)
      expect(ours.state).toEqual(theirs.state)
      const geth = theirs.traces.map((t: Frame, i: number) => gethCallFrame(t, theirs.gasLimits[i]!))
      expect(ours.traces).toEqual(geth)
    },
    180_000,
  )
})
