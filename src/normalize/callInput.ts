/**
 * Call object → engine `CallInput` (interface §3): lowercase addresses, bigint quantities,
 * `input` as an alias of `data` (both differing is an error, as in geth), legacy and EIP-1559 fee
 * fields not mixed.
 */
import type { Address } from 'viem'
import type { CallInput } from '../../engine/types.js'
import { joinPath, validationError } from '../errors/apiError.js'
import type { CallObjectInput } from '../schemas/call.js'
import { toAddress, toData, toQuantity, toWord, UINT64_MAX } from './quantities.js'

const zeroAddress = '0x0000000000000000000000000000000000000000' as Address

export function toCallInput(call: CallObjectInput, path: string): CallInput {
  const at = (field: string) => joinPath(path, field)
  if (call.data !== undefined && call.input !== undefined && call.data.toLowerCase() !== call.input.toLowerCase()) {
    throw validationError([{ path: at('input'), message: 'both input and data are set and differ' }], 'send only one of input and data')
  }
  if (call.gasPrice !== undefined && (call.maxFeePerGas !== undefined || call.maxPriorityFeePerGas !== undefined)) {
    throw validationError(
      [{ path: at('gasPrice'), message: 'both gasPrice and maxFeePerGas/maxPriorityFeePerGas are set' }],
      'send gasPrice for a legacy transaction or the EIP-1559 fields, not both',
    )
  }
  const out: CallInput = {
    from: call.from !== undefined ? toAddress(call.from) : zeroAddress,
    to: call.to == null ? null : toAddress(call.to),
    data: toData(call.data ?? call.input ?? '0x'),
  }
  if (call.gas !== undefined) out.gas = toQuantity(call.gas, at('gas'), UINT64_MAX)
  if (call.value !== undefined) out.value = toQuantity(call.value, at('value'))
  if (call.gasPrice !== undefined) out.gasPrice = toQuantity(call.gasPrice, at('gasPrice'))
  if (call.maxFeePerGas !== undefined) out.maxFeePerGas = toQuantity(call.maxFeePerGas, at('maxFeePerGas'))
  if (call.maxPriorityFeePerGas !== undefined) out.maxPriorityFeePerGas = toQuantity(call.maxPriorityFeePerGas, at('maxPriorityFeePerGas'))
  if (call.nonce !== undefined) out.nonce = toQuantity(call.nonce, at('nonce'), UINT64_MAX)
  if (call.accessList !== undefined) {
    out.accessList = call.accessList.map((entry, i) => ({
      address: toAddress(entry.address),
      storageKeys: entry.storageKeys.map((k, j) => toWord(k, at(`accessList[${i}].storageKeys[${j}]`))),
    }))
  }
  if (call.authorizationList !== undefined) {
    // geth's message checks (ErrSetCodeTxCreate, ErrEmptyAuthList), answered at the field
    if (out.to === null)
      throw validationError([{ path: at('authorizationList'), message: 'an EIP-7702 transaction cannot create a contract: `to` is required' }])
    if (call.authorizationList.length === 0)
      throw validationError(
        [{ path: at('authorizationList'), message: 'an EIP-7702 authorization list must hold at least one authorization' }],
        'leave authorizationList out for a call without delegations',
      )
    out.authorizationList = call.authorizationList.map((a, i) => {
      const field = (name: string) => at(`authorizationList[${i}].${name}`)
      return {
        chainId: toQuantity(a.chainId, field('chainId')),
        address: toAddress(a.address),
        nonce: toQuantity(a.nonce, field('nonce'), UINT64_MAX),
        yParity: Number(toQuantity(a.yParity, field('yParity'), 0xffn)),
        r: toQuantity(a.r, field('r')),
        s: toQuantity(a.s, field('s')),
      }
    })
  }
  return out
}
