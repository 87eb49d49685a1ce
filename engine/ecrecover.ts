/**
 * ecrecover for ethereumjs (`customCrypto.ecrecover` of every Common): libsecp256k1 compiled to
 * WebAssembly (tiny-secp256k1) in place of the pure-JS curve ethereumjs uses by default
 * (@noble/curves). Every signed transaction's sender is recovered once (a writable fork's send,
 * a devnet block, a replay of a transaction without a known sender), and so is every call of the
 * ECRECOVER precompile; a recovery costs about a quarter of noble's here.
 *
 * The contract is ethereumjs' own (`ecrecover` in @ethereumjs/util/signature): the recovery id
 * from `v` (0/1, 27/28, or EIP-155's with the chain id), a 64-byte public key without its prefix
 * byte, and an error for anything it cannot recover (a `v`, `r` or `s` out of range, an `r` that
 * is not on the curve). High-`s` signatures are recovered, as the precompile must; the tx rule
 * against them (EIP-2) is ethereumjs' own check before this. test/engine/ecrecover.test.ts holds
 * it equal to @ethereumjs/util's on valid, high-s and invalid signatures.
 *
 * @example
 * new Common({ chain: Mainnet, customCrypto: { ecrecover } })
 */
import { calculateSigRecovery, setLengthLeft } from '@ethereumjs/util'
import { recover } from 'tiny-secp256k1'

export function ecrecover(msgHash: Uint8Array, v: bigint, r: Uint8Array, s: Uint8Array, chainId?: bigint): Uint8Array {
  const recovery = calculateSigRecovery(v, chainId)
  if (recovery !== 0n && recovery !== 1n) throw new Error('Invalid signature v value')
  const signature = new Uint8Array(64)
  signature.set(setLengthLeft(r, 32), 0)
  signature.set(setLengthLeft(s, 32), 32)
  let key: Uint8Array | null
  try {
    key = recover(msgHash, signature, Number(recovery) as 0 | 1, false)
  } catch {
    key = null
  }
  if (!key) throw new Error('Invalid signature')
  return key.subarray(1)
}
