/**
 * Deploys compiled contracts on an in-process EVM (ethereumjs, Cancun) so tests see code as a
 * chain holds it: immutables written by the constructor, libraries linked, a library's own
 * address in its call protection, contracts created by a factory.
 */
import { Common, Hardfork, Mainnet } from '@ethereumjs/common'
import { createEVM, type EVM } from '@ethereumjs/evm'
import { Address, createAddressFromString } from '@ethereumjs/util'
import { type Abi, type Hex, bytesToHex, decodeFunctionResult, encodeFunctionData, hexToBytes } from 'viem'

export interface Chain {
  evm: EVM
  /** runs init code; the created address and its runtime code */
  create(initCode: Hex): Promise<{ address: Hex; code: Uint8Array }>
  call(to: Hex, abi: Abi, functionName: string, args: unknown[]): Promise<unknown>
  codeAt(address: Hex): Promise<Uint8Array>
}

export async function inProcessChain(): Promise<Chain> {
  const evm = await createEVM({ common: new Common({ chain: Mainnet, hardfork: Hardfork.Cancun }) })
  const caller = createAddressFromString('0x00000000000000000000000000000000000000c0')
  const codeAt = async (address: Hex) => evm.stateManager.getCode(createAddressFromString(address))
  return {
    evm,
    codeAt,
    async create(initCode) {
      const result = await evm.runCall({ caller, data: hexToBytes(initCode), gasLimit: 30_000_000n })
      if (result.execResult.exceptionError || !result.createdAddress) throw new Error(`create failed: ${result.execResult.exceptionError?.error}`)
      const address = result.createdAddress.toString() as Hex
      return { address, code: await codeAt(address) }
    },
    async call(to, abi, functionName, args) {
      const data = encodeFunctionData({ abi, functionName, args })
      const result = await evm.runCall({ caller, to: new Address(hexToBytes(to)), data: hexToBytes(data), gasLimit: 30_000_000n })
      if (result.execResult.exceptionError) throw new Error(`call failed: ${result.execResult.exceptionError.error}`)
      return decodeFunctionResult({ abi, functionName, data: bytesToHex(result.execResult.returnValue) })
    },
  }
}

/** the compiled object with every placeholder of `library` replaced by its address */
export function link(object: string, linkReferences: Record<string, Record<string, { start: number }[]>>, library: string, address: Hex): Hex {
  let hex = object.startsWith('0x') ? object.slice(2) : object
  for (const libs of Object.values(linkReferences)) {
    for (const r of libs[library] ?? []) hex = hex.slice(0, r.start * 2) + address.slice(2).toLowerCase() + hex.slice(r.start * 2 + 40)
  }
  return `0x${hex}`
}
