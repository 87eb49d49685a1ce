/**
 * A writable fork estimates gas as Anvil does, to the exact minimum (geth's search stops within
 * 1.5 %): eth_estimateGas, and so the gas eth_sendTransaction fills in, equal those of an Anvil
 * forking the same upstream at the same block — for a deployment, a call, and a call whose
 * storage refund makes its minimum exceed its gas used.
 */
import { encodeDeployData, encodeFunctionData, type Hex } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEV_ACCOUNTS, receiptOf, requireAnvil, startAnvil, type AnvilInstance } from '../../support/anvil.js'
import { forkContracts } from './contracts.js'
import { startForkPair } from './forkApp.js'

const { Token } = forkContracts()
const [alice, bob] = [DEV_ACCOUNTS[0], DEV_ACCOUNTS[1]]
const SUPPLY = 10n ** 24n

describe.skipIf(!requireAnvil())('gas estimates on a fork', () => {
  let upstream: AnvilInstance
  let pair: Awaited<ReturnType<typeof startForkPair>>
  let forkId: string
  let token: Hex

  beforeAll(async () => {
    upstream = await startAnvil()
    const deploy = await upstream.rpc<Hex>('eth_sendTransaction', [
      { from: alice, data: encodeDeployData({ abi: Token.abi, bytecode: Token.bytecode, args: [SUPPLY] }) },
    ])
    token = (await receiptOf(upstream, deploy)).contractAddress!
    pair = await startForkPair(upstream)
    forkId = (await pair.app.createFork({ blockNumber: pair.forkBlock })).forkId
  }, 120_000)
  afterAll(async () => {
    await pair?.close()
    await upstream?.stop()
  })

  const both = async (call: Record<string, unknown>) => {
    const ours = await pair.app.rpc(forkId, 'eth_estimateGas', [call])
    expect(ours.error).toBeUndefined()
    return { ours: BigInt(ours.result), anvil: BigInt(await pair.anvilFork.rpc<Hex>('eth_estimateGas', [call])) }
  }
  const transfer = (amount: bigint) => encodeFunctionData({ abi: Token.abi, functionName: 'transfer', args: [bob, amount] })

  it("equal Anvil's for a deployment, a call, and a call with a storage refund", async () => {
    const deployment = await both({ from: alice, data: encodeDeployData({ abi: Token.abi, bytecode: Token.bytecode, args: [1n] }) })
    expect(deployment.ours).toBe(deployment.anvil)
    const call = await both({ from: alice, to: token, data: transfer(1n) })
    expect(call.ours).toBe(call.anvil)
    // the whole balance: alice's slot is cleared, its refund paid back after the run
    const refunded = await both({ from: alice, to: token, data: transfer(SUPPLY) })
    expect(refunded.ours).toBe(refunded.anvil)
    const run = await pair.app.rpc(forkId, 'eth_call', [{ from: alice, to: token, data: transfer(SUPPLY), gas: `0x${(refunded.ours - 1n).toString(16)}` }])
    // one gas less fails: the estimate is the exact minimum
    expect(run.error).toBeDefined()
  }, 120_000)
})
