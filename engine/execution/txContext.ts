/**
 * txContext: the TxContext tracers get at onTxStart (tracers/types.ts), read before the nonce
 * bump and the gas purchase, as geth's OnTxStart.
 */
import type { Common } from '@ethereumjs/common'
import { getActivePrecompiles } from '@ethereumjs/evm'
import { Capability, type TypedTransaction } from '@ethereumjs/tx'
import { bytesToHex, eoaCode7702RecoverAuthority, generateAddress, bigIntToUnpaddedBytes, type Address as EjsAddress } from '@ethereumjs/util'
import type { Address, Hex } from 'viem'
import type { TxContext } from '../../tracers/types.js'
import { createStateReader } from '../state/stateReader.js'
import type { ExecutionContext } from './types.js'

const lower = (a: EjsAddress): Address => a.toString().toLowerCase() as Address

/**
 * The fork's precompile addresses, made once per chain, fork and EIP set (as the evm patch keeps
 * ethereumjs' own table): building the map and the Set anew on every tx was 0.4% of a traced swap.
 * A handful of keys at most (one per fork a chain schedules).
 */
const precompilesByFork = new Map<string, ReadonlySet<string>>()
function precompilesOf(common: Common): ReadonlySet<string> {
  const key = `${common.chainId()}|${common.hardfork()}|${common.eips().join(',')}`
  let set = precompilesByFork.get(key)
  if (set === undefined) {
    set = new Set([...getActivePrecompiles(common).keys()].map((k) => `0x${k}`.toLowerCase()))
    precompilesByFork.set(key, set)
  }
  return set
}

export function buildTxContext(
  ctx: ExecutionContext,
  common: Common,
  tx: TypedTransaction,
  sender: EjsAddress,
  effectiveGasPrice: bigint,
  feeRecipients?: Address[],
): TxContext {
  const precompiles = precompilesOf(common)
  const authorities: Address[] = []
  if (tx.supports(Capability.EIP7702EOACode)) {
    for (const auth of (tx as TypedTransaction & { authorizationList: Uint8Array[][] }).authorizationList) {
      try {
        // geth's prestate looks up every authority that recovers, valid or not
        authorities.push(lower(eoaCode7702RecoverAuthority(auth as never)))
      } catch {
        /* unrecoverable signature: geth skips it too */
      }
    }
  }
  return {
    from: lower(sender),
    to: tx.to ? lower(tx.to) : null,
    createdAddress: tx.to ? null : (bytesToHex(generateAddress(sender.bytes, bigIntToUnpaddedBytes(tx.nonce))) as Address),
    input: bytesToHex(tx.data) as Hex,
    value: tx.value,
    gasLimit: tx.gasLimit,
    gasPrice: effectiveGasPrice,
    nonce: tx.nonce,
    coinbase: ctx.block.coinbase.toLowerCase() as Address,
    blockNumber: ctx.block.number,
    hardfork: common.hardfork(),
    isActive: (fork) => common.gteHardfork(fork),
    isPrecompile: (address) => precompiles.has(address.toLowerCase()),
    authorities,
    ...(feeRecipients && { feeRecipients }),
    state: createStateReader(ctx.state),
  }
}
