/**
 * senderAsEoa: lets a call come from an address that has code. geth skips the EIP-3607
 * sender-is-EOA check for RPC calls (SkipTransactionChecks) and for eth_simulateV1 ("the EoA
 * check is always skipped"); ethereumjs' runTx always applies it. Until execution starts, this
 * view shows runTx the sender with an empty code hash and puts the real one back on every write,
 * so the contract keeps its code. Only built when the sender really has code (rare): the common
 * path pays nothing.
 */
import type { StateManagerInterface } from '@ethereumjs/common'
import { Account, KECCAK256_NULL, type Address as EjsAddress } from '@ethereumjs/util'

export interface SenderAsEoa {
  state: StateManagerInterface
  /** call when the top message starts: from then on the sender is what it is */
  release(): void
}

export function senderAsEoa(state: StateManagerInterface, sender: EjsAddress, realCodeHash: Uint8Array): SenderAsEoa {
  let active = true
  const key = sender.toString()
  const view = new Proxy(state, {
    get(target, prop) {
      if (active && prop === 'getAccount') {
        return async (a: EjsAddress) => {
          const acc = await target.getAccount(a)
          if (!acc || a.toString() !== key) return acc
          return new Account(acc.nonce, acc.balance, acc.storageRoot, KECCAK256_NULL)
        }
      }
      if (active && prop === 'putAccount') {
        return async (a: EjsAddress, acc: Account | undefined) => {
          if (acc && a.toString() === key) acc.codeHash = realCodeHash
          return target.putAccount(a, acc)
        }
      }
      const v = Reflect.get(target, prop, target) as unknown
      return typeof v === 'function' ? (v as (...args: unknown[]) => unknown).bind(target) : v
    },
  })
  return { state: view, release: () => (active = false) }
}
