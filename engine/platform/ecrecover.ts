/**
 * ecrecover for ethereumjs (`customCrypto.ecrecover` of every Common): libsecp256k1 in place of
 * the pure-JS curve ethereumjs uses by default (@noble/curves). Every signed transaction's sender
 * is recovered once (a writable fork's send, a devnet block, a replay of a transaction without a
 * known sender), and so is every call of the ECRECOVER precompile.
 *
 * Two builds of the same C library: the native one (npm `secp256k1`, a Node-API addon whose
 * package carries prebuilt binaries; about 90 µs a recovery here) where its binary loads, else the
 * WebAssembly one (tiny-secp256k1; about 500 µs, a quarter of noble's). A platform without a
 * prebuilt binary loses speed, never an answer.
 *
 * The contract is ethereumjs' own (`ecrecover` in @ethereumjs/util/signature): the recovery id
 * from `v` (0/1, 27/28, or EIP-155's with the chain id), a 64-byte public key without its prefix
 * byte, and an error for anything it cannot recover (a `v`, `r` or `s` out of range, an `r` that
 * is not on the curve). High-`s` signatures are recovered, as the precompile must; the tx rule
 * against them (EIP-2) is ethereumjs' own check before this. test/engine/platform/ecrecover.test.ts holds
 * both builds equal to @ethereumjs/util's on valid, high-s and invalid signatures.
 *
 * @example
 * new Common({ chain: Mainnet, customCrypto: { ecrecover } })
 */
import { createRequire } from 'node:module'
import { calculateSigRecovery, setLengthLeft } from '@ethereumjs/util'
import { recover as wasmRecover } from 'tiny-secp256k1'

/** an uncompressed public key (65 bytes, 0x04 first) of the signature's signer; throws when none */
export type RecoverKey = (msgHash: Uint8Array, signature: Uint8Array, recovery: 0 | 1) => Uint8Array

/** the native addon, or undefined where its binary does not load */
function nativeRecover(): RecoverKey | undefined {
  try {
    // `secp256k1/bindings` is the addon alone: the package's main entry falls back to a slow
    // pure-JS curve (elliptic) by itself, which would hide a missing binary
    const native = createRequire(import.meta.url)('secp256k1/bindings') as typeof import('secp256k1')
    return (msgHash, signature, recovery) => native.ecdsaRecover(signature, recovery, msgHash, false)
  } catch {
    return undefined
  }
}

export const wasmRecoverKey: RecoverKey = (msgHash, signature, recovery) => {
  let key: Uint8Array | null
  try {
    key = wasmRecover(msgHash, signature, recovery, false)
  } catch {
    key = null
  }
  if (!key) throw new Error('Invalid signature')
  return key
}

export const nativeRecoverKey: RecoverKey | undefined = nativeRecover()

/** ethereumjs' ecrecover over one build of libsecp256k1 */
export function ecrecoverWith(recoverKey: RecoverKey) {
  return (msgHash: Uint8Array, v: bigint, r: Uint8Array, s: Uint8Array, chainId?: bigint): Uint8Array => {
    const recovery = calculateSigRecovery(v, chainId)
    if (recovery !== 0n && recovery !== 1n) throw new Error('Invalid signature v value')
    const signature = new Uint8Array(64)
    signature.set(setLengthLeft(r, 32), 0)
    signature.set(setLengthLeft(s, 32), 32)
    let key: Uint8Array
    try {
      key = recoverKey(msgHash, signature, Number(recovery) as 0 | 1)
    } catch {
      throw new Error('Invalid signature')
    }
    return key.subarray(1)
  }
}

export const ecrecover = ecrecoverWith(nativeRecoverKey ?? wasmRecoverKey)
