/**
 * The keccak-256 preimages a run computed, indexed by what a mapping slot is made of: Solidity
 * puts `mapping[key]` at keccak256(key ‖ slot), so a preimage whose last 32 bytes are a mapping's
 * slot names one of its keys, and its hash is where that key's value lives.
 */
import { bytesToBigInt } from '@ethereumjs/util'
import { keccak256 } from '../../platform/keccak.js'

export interface MappingKey {
  /** keccak256(key ‖ slot): the value's slot */
  hash: bigint
  /** the key's bytes as hashed (one padded word for value types, the raw bytes for string/bytes keys) */
  key: Uint8Array
}

export class Preimages {
  private readonly bySlot = new Map<bigint, MappingKey[]>()

  constructor(inputs: Iterable<Uint8Array>) {
    for (const input of inputs) this.add(input)
  }

  add(input: Uint8Array): void {
    if (input.length < 32) return
    const slot = bytesToBigInt(input.subarray(input.length - 32))
    const hash = bytesToBigInt(keccak256(input))
    const list = this.bySlot.get(slot) ?? []
    if (!list.some((k) => k.hash === hash)) list.push({ hash, key: input.slice(0, input.length - 32) })
    this.bySlot.set(slot, list)
  }

  /** every key hashed with this slot: the candidates for a mapping at it */
  keysOf(slot: bigint): MappingKey[] {
    return this.bySlot.get(slot) ?? []
  }
}

/** keccak256 of a slot number: where a dynamic array's elements or a long string's data start */
export function dataSlotOf(slot: bigint): bigint {
  const word = new Uint8Array(32)
  let v = slot
  for (let i = 31; i >= 0; i--) {
    word[i] = Number(v & 0xffn)
    v >>= 8n
  }
  return bytesToBigInt(keccak256(word))
}
