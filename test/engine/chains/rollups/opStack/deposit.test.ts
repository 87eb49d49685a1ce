/**
 * Deposit transactions by the specs' rules (protocol/deposits "Execution"), where Anvil cannot
 * produce the case (its pool refuses a deposit sending more than it holds): the engine runs the
 * deposit on an OP-stack Anvil's state. A deposit the VM refuses still lands: its mint kept, its
 * nonce bumped, its whole gas used; before Regolith a deposit reports its gas limit and a system
 * deposit 0; from Regolith a system deposit is refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Address as EjsAddress, hexToBytes } from '@ethereumjs/util'
import { createRpcChain, type RpcChain } from '../../../../../engine/chains/remote/rpcChain.js'
import { decodeDeposit } from '../../../../../engine/chains/rollups/opStack/deposit.js'
import { executeSignedTx } from '../../../../../engine/execution/executeTransaction.js'
import { executionContext } from '../../../../../engine/run/blockEnvironment.js'
import { createMemoryCacheStore } from '../../../../../host/cache/memoryCacheStore.js'
import { DEV_ACCOUNTS, requireAnvil, type AnvilInstance } from '../../../../support/anvil.js'
import { startOpAnvil } from '../../../../support/opAnvil.js'

const haveAnvil = requireAnvil()
const FRESH = '0x00000000000000000000000000000000000d0d0d'
const ONE_ETH = 10n ** 18n

describe.runIf(haveAnvil)('deposit transactions', () => {
  let anvil: AnvilInstance
  const chains: RpcChain[] = []
  beforeAll(async () => {
    anvil = await startOpAnvil('isthmus')
  }, 60_000)
  afterAll(async () => {
    for (const c of chains) await c.close()
    await anvil?.stop()
  })

  async function run(fork: string, deposit: Record<string, unknown>) {
    const chain = await createRpcChain({ url: anvil.url, timeoutMs: 5_000, cache: createMemoryCacheStore(), kind: 'op-stack', hardfork: fork })
    chains.push(chain)
    const header = await chain.resolveBlock({ tag: 'latest' })
    const state = await chain.stateAfter(header.number)
    const ctx = executionContext(chain, header, state)
    const decoded = await decodeDeposit(
      { type: '0x7e', hash: '0x01', nonce: '0x0', input: '0x', value: '0x0', sourceHash: `0x${'55'.repeat(32)}`, ...deposit },
      ctx.common,
    )
    const result = await executeSignedTx(ctx, decoded!.tx, { validation: true })
    const account = await state.getAccount(new EjsAddress(hexToBytes(deposit.from as `0x${string}`)))
    return { result, balance: account?.balance ?? 0n, nonce: account?.nonce ?? 0n }
  }

  it('a deposit sending more than it holds fails, keeps its mint, bumps its nonce and uses its gas limit', async () => {
    const { result, balance, nonce } = await run('isthmus', {
      from: FRESH,
      to: DEV_ACCOUNTS[1],
      value: `0x${(2n * ONE_ETH).toString(16)}`,
      mint: `0x${ONE_ETH.toString(16)}`,
      gas: '0x186a0',
    })
    expect(result.status).toBe('failed')
    expect(result.gasUsed).toBe(100_000n)
    expect(balance).toBe(ONE_ETH)
    expect(nonce).toBe(1n)
  })

  it('a successful deposit: Regolith on, the gas it used; Bedrock, its gas limit; a Bedrock system deposit, 0', async () => {
    const base = { from: FRESH, to: DEV_ACCOUNTS[1], value: '0x1', mint: `0x${ONE_ETH.toString(16)}`, gas: '0x186a0' }
    expect((await run('isthmus', base)).result.gasUsed).toBe(21_000n)
    expect((await run('bedrock', base)).result.gasUsed).toBe(100_000n)
    expect((await run('bedrock', { ...base, isSystemTx: true })).result.gasUsed).toBe(0n)
  })

  it('refuses a system deposit from Regolith on', async () => {
    await expect(run('regolith', { from: FRESH, to: DEV_ACCOUNTS[1], gas: '0x186a0', isSystemTx: true })).rejects.toThrow(
      /system deposit transaction is invalid from Regolith on/,
    )
  })
})
