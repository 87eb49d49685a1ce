/**
 * What a writable fork asks its upstream for once it has read what its transactions touch: nothing.
 * Each mined block writes the parent hash into the EIP-2935 history contract and the beacon root
 * into the EIP-4788 contract; those writes happen before the block's first transaction and must
 * not read the slot they replace (one upstream round trip per block, a new slot every block).
 * The first block reads the accounts it touches (system contracts, coinbase, the created contract)
 * in one round trip, and calls and traces of contracts the fork deployed ask the upstream nothing:
 * its access-list hints describe other code. Counted by a proxy in front of a real Anvil.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { encodeDeployData, encodeFunctionData, type Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { requireAnvil, startAnvil, type AnvilInstance } from '../../support/anvil.js'
import { startCountingProxy, type CountingProxy } from '../../support/countingProxy.js'
import { forkContracts } from './contracts.js'
import { startForkApp, type ForkApp } from './forkApp.js'

const alice = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80')
const bob = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8'
const { Token } = forkContracts()

describe('sends on a fork of a real upstream', () => {
  const hasAnvil = requireAnvil()
  let upstream: AnvilInstance
  let proxy: CountingProxy
  let app: ForkApp
  beforeAll(async () => {
    if (!hasAnvil) return
    upstream = await startAnvil()
    proxy = await startCountingProxy(upstream.url)
    app = await startForkApp({ rpcUrl: proxy.url })
  }, 60_000)
  afterAll(async () => {
    await app?.close()
    await proxy?.close()
    await upstream?.stop()
  })

  it.runIf(hasAnvil)(
    'read nothing more from the upstream once the state they touch is read',
    async () => {
      const { forkId } = await app.createFork()
      const rpc = async (method: string, params: unknown[] = []) => {
        const r = await app.rpc(forkId, method, params)
        if (r.error) throw new Error(`${method}: ${r.error.message}`)
        return r.result
      }
      let nonce = Number(await rpc('eth_getTransactionCount', [alice.address, 'latest']))
      const send = async (to: Hex | null, data: Hex) => {
        const raw = await alice.signTransaction({
          chainId: 31337,
          type: 'eip1559',
          nonce: nonce++,
          ...(to && { to }),
          data,
          gas: 3_000_000n,
          maxFeePerGas: 10n ** 11n,
          maxPriorityFeePerGas: 10n ** 9n,
        })
        const receipt = await rpc('eth_getTransactionReceipt', [await rpc('eth_sendRawTransaction', [raw])])
        expect(receipt.status).toBe('0x1')
        return receipt as { contractAddress: Hex | null; blockNumber: Hex }
      }
      const beforeDeploy = proxy.requests()
      const token = (await send(null, encodeDeployData({ abi: Token.abi, bytecode: Token.bytecode, args: [10n ** 24n] }))).contractAddress!
      // the block's accounts in one batch, then the slot the constructor writes (its original value)
      expect(proxy.requests() - beforeDeploy).toBe(2)
      const transfer = (n: number) => send(token, encodeFunctionData({ abi: Token.abi, functionName: 'transfer', args: [bob, BigInt(n)] }))
      await transfer(1)
      const before = proxy.requests()
      const first = await transfer(2)
      let last = first
      for (let i = 3; i < 13; i++) last = await transfer(i)
      // eleven blocks, each with its own history-contract slot
      expect(BigInt(last.blockNumber) - BigInt(first.blockNumber)).toBe(10n)
      expect(proxy.requests() - before).toBe(0)

      const balance = encodeFunctionData({ abi: Token.abi, functionName: 'balanceOf', args: [bob] })
      expect(BigInt(await rpc('eth_call', [{ to: token, data: balance }, 'latest']))).toBe(BigInt((12 * 13) / 2))
      const txs = (await rpc('eth_getBlockByNumber', [last.blockNumber, false])) as { transactions: Hex[] }
      const trace = (await rpc('debug_traceTransaction', [txs.transactions[0], { tracer: 'callTracer' }])) as { to: Hex }
      expect(trace.to).toBe(token.toLowerCase())
      expect(proxy.requests() - before).toBe(0)
    },
    120_000,
  )
})
