/**
 * The proof-of-work block reward of a simulated block, as geth's simulator gets it: it seals each
 * block with the chain's consensus engine (FinalizeAndAssemble), and on a proof-of-work header
 * (difficulty not zero: a simulation on a pre-merge block, whose difficulty the simulated blocks
 * inherit) that is ethash's Finalize, which credits the coinbase 5 ETH (Frontier), 3 ETH
 * (Byzantium) or 2 ETH (Constantinople on) after the calls and before the state root is taken.
 * No uncles, so no uncle rewards. A proof-of-stake block (difficulty 0, or a fork schedule past
 * the merge) gets nothing.
 *
 * @example
 * await creditBlockReward(state, common, env) // after the block's calls, before its state root
 */
import type { Common, StateManagerInterface } from '@ethereumjs/common'
import { Account, createAddressFromString } from '@ethereumjs/util'
import type { BlockEnv } from '../../execution/types.js'

const ETHER = 10n ** 18n

export async function creditBlockReward(state: StateManagerInterface, common: Common, env: BlockEnv): Promise<void> {
  if (env.difficulty === 0n || common.gteHardfork('paris')) return
  const reward = common.gteHardfork('constantinople') ? 2n * ETHER : common.gteHardfork('byzantium') ? 3n * ETHER : 5n * ETHER
  const coinbase = createAddressFromString(env.coinbase)
  const account = (await state.getAccount(coinbase)) ?? new Account()
  account.balance += reward
  await state.putAccount(coinbase, account)
}
