/**
 * One call on the in-process chain observed as the decoder's callers observe a run: the slots it
 * wrote (with each one's value before the first write), and the input of every KECCAK256.
 */
import { Address, createAddressFromString } from '@ethereumjs/util'
import { type Abi, type Hex, encodeFunctionData, hexToBytes } from 'viem'
import type { SlotReader } from '../../../../engine/sources/storageLayout/decodeChanges.js'
import type { Chain } from '../deploy.js'

export interface ObservedRun {
  /** the written slots of `at`, in first-write order */
  changed: bigint[]
  preimages: Uint8Array[]
  read: SlotReader
}

const caller = createAddressFromString('0x00000000000000000000000000000000000000c0')
const word = (b: Uint8Array): bigint => (b.length === 0 ? 0n : BigInt(`0x${Buffer.from(b).toString('hex')}`))
const slotKey = (slot: bigint) => hexToBytes(`0x${slot.toString(16).padStart(64, '0')}`)

export async function observeCall(chain: Chain, at: Hex, to: Hex, abi: Abi, functionName: string, args: unknown[]): Promise<ObservedRun> {
  const account = createAddressFromString(at)
  const state = chain.evm.stateManager
  const before = new Map<bigint, bigint>()
  const preimages: Uint8Array[] = []
  const events = chain.evm.events as unknown as {
    on(n: string, f: (d: any, resolve: (v?: unknown) => void) => void): void
    removeAllListeners(n: string): void
  }
  events.on('step', (ev, resolve) => {
    const top = (i: number): bigint => ev.stack[ev.stack.length - 1 - i]
    if (ev.opcode.name === 'KECCAK256') {
      const [offset, size] = [Number(top(0)), Number(top(1))]
      const mem = new Uint8Array(size)
      mem.set(ev.memory.subarray(offset, offset + size))
      preimages.push(mem)
    }
    if (ev.opcode.name === 'SSTORE' && ev.address.equals(account) && !before.has(top(0))) {
      const slot = top(0)
      state.getStorage(account, slotKey(slot)).then((v: Uint8Array) => resolve(before.set(slot, word(v))), resolve)
      return
    }
    resolve()
  })
  const data = encodeFunctionData({ abi, functionName, args })
  const result = await chain.evm.runCall({ caller, to: new Address(hexToBytes(to)), data: hexToBytes(data), gasLimit: 30_000_000n })
  events.removeAllListeners('step')
  if (result.execResult.exceptionError) throw new Error(`call failed: ${result.execResult.exceptionError.error}`)
  const read: SlotReader = async (slot, when) => {
    if (when === 'before' && before.has(slot)) return before.get(slot) as bigint
    return word(await state.getStorage(account, slotKey(slot)))
  }
  return { changed: [...before.keys()], preimages, read }
}
