/**
 * stateReader: the read-only StateReader (tracers/types.ts) over the state the EVM executes on.
 * Tracers read through it at the moment of a hook, so they see exactly the executing state
 * (including uncommitted writes of the running transaction), never upstream.
 */
import type { StateManagerInterface } from '@ethereumjs/common'
import { Address as EjsAddress, bytesToHex, hexToBytes, setLengthLeft } from '@ethereumjs/util'
import type { Address, Hex } from 'viem'
import type { StateReader } from '../../tracers/types.js'

const toEjs = (a: Address): EjsAddress => new EjsAddress(hexToBytes(a))

export function createStateReader(state: StateManagerInterface): StateReader {
  return {
    async getBalance(address) {
      return (await state.getAccount(toEjs(address)))?.balance ?? 0n
    },
    async getNonce(address) {
      return (await state.getAccount(toEjs(address)))?.nonce ?? 0n
    },
    async getCode(address) {
      return bytesToHex(await state.getCode(toEjs(address))) as Hex
    },
    async getStorage(address, slot) {
      const key = setLengthLeft(hexToBytes(slot), 32)
      const value = await state.getStorage(toEjs(address), key)
      return bytesToHex(setLengthLeft(value, 32)) as Hex
    },
    async isEmpty(address) {
      const acc = await state.getAccount(toEjs(address))
      return acc === undefined || acc.isEmpty()
    },
  }
}
