/**
 * keccak256 for ethereumjs (`customCrypto.keccak256` of every Common): hash-wasm's WebAssembly
 * Keccak in place of the pure-JS one ethereumjs uses by default (@noble/hashes). A token transfer
 * hashes six to eight short inputs (its mapping slots in KECCAK256, and runTx's logs bloom: the
 * address and every topic of every log), and a 32-64 byte hash costs about 1.1 µs here against
 * 7.5 µs: 3-5% of the EVM's own time on a transfer (an in-process A/B). Same function, so the
 * same bytes: the conformance corpus and the differential tests run through it.
 *
 * One hasher per thread (the module is loaded once per worker thread): init, update and digest
 * run synchronously together, so no two hashes interleave on it. The WebAssembly is inside the
 * package (nothing is fetched); compiling it takes a few milliseconds, once, at import.
 *
 * @example
 * new Common({ chain: Mainnet, customCrypto: { keccak256 } })
 */
import { createKeccak } from 'hash-wasm'

const hasher = await createKeccak(256)

export function keccak256(data: Uint8Array): Uint8Array {
  hasher.init()
  hasher.update(data)
  // 'binary' answers a copy, which the caller may keep
  return hasher.digest('binary')
}
