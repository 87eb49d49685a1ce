/**
 * Arbitrum chains are not emulated: ArbOS (its gas model, its precompiles, its own transaction
 * types) runs beside the EVM and nothing here reproduces it. So that a run never answers silently
 * wrong, the parts a run can reach answer NOT_EMULATED naming what is missing:
 * - a block holding one of Arbitrum's own transaction types (0x64 deposit, 0x65 unsigned, 0x66
 *   contract, 0x68 retry, 0x69 submit-retryable, 0x6a internal, 0x78 legacy; nitro
 *   core/types/transaction.go);
 * - a call reaching an ArbOS precompile (0x64..0x73 ArbSys, ArbInfo, ArbGasInfo, ArbRetryableTx,
 *   ArbWasm, ...; 0xc8/0xc9 NodeInterface; 0xff ArbDebug).
 * A chain is Arbitrum by its id (Arbitrum One, Nova, Sepolia) or `kind = "arbitrum"`.
 */
import type { EVMOpts } from '@ethereumjs/evm'
import { Address as EjsAddress, hexToBytes } from '@ethereumjs/util'
import { EngineError } from '../../platform/errors.js'
import { toQuantity } from '../../platform/quantity.js'
import type { ChainRules } from '../rules.js'

const ARBITRUM_CHAIN_IDS = new Set([42161, 42170, 421614])
export const isArbitrumChain = (chainId: number): boolean => ARBITRUM_CHAIN_IDS.has(chainId)

const ARBITRUM_TX_TYPES: Record<number, string> = {
  0x64: 'ArbitrumDepositTx',
  0x65: 'ArbitrumUnsignedTx',
  0x66: 'ArbitrumContractTx',
  0x68: 'ArbitrumRetryTx',
  0x69: 'ArbitrumSubmitRetryableTx',
  0x6a: 'ArbitrumInternalTx',
  0x78: 'ArbitrumLegacyTx',
}

const ARBOS_PRECOMPILES: Record<number, string> = {
  0x64: 'ArbSys',
  0x65: 'ArbInfo',
  0x66: 'ArbAddressTable',
  0x67: 'ArbBLS',
  0x68: 'ArbFunctionTable',
  0x69: 'ArbosTest',
  0x6b: 'ArbOwnerPublic',
  0x6c: 'ArbGasInfo',
  0x6d: 'ArbAggregator',
  0x6e: 'ArbRetryableTx',
  0x6f: 'ArbStatistics',
  0x70: 'ArbOwner',
  0x71: 'ArbWasm',
  0x72: 'ArbWasmCache',
  0x73: 'ArbNativeTokenManager',
  0xc8: 'NodeInterface',
  0xc9: 'NodeInterfaceDebug',
  0xff: 'ArbDebug',
}

const notEmulated = (what: string, details: Record<string, unknown>) =>
  new EngineError(
    'NOT_EMULATED',
    `${what} is not emulated: Arbitrum's ArbOS is not part of this service's EVM`,
    details,
    "trace Arbitrum transactions with the chain's own debug_traceTransaction",
  )

function arbosPrecompiles(): NonNullable<EVMOpts['customPrecompiles']> {
  return Object.entries(ARBOS_PRECOMPILES).map(([n, name]) => {
    const address = `0x${Number(n).toString(16).padStart(40, '0')}`
    return {
      address: new EjsAddress(hexToBytes(address as `0x${string}`)),
      function: () => {
        throw notEmulated(`the ArbOS precompile ${name} (${address})`, { precompile: address, name })
      },
    }
  })
}

export const arbitrumRules: ChainRules = {
  kind: 'arbitrum',
  async decodeTx(json) {
    const type = json.type === undefined ? 0 : Number(BigInt(json.type as string))
    const name = ARBITRUM_TX_TYPES[type]
    if (name) throw notEmulated(`transaction type ${toQuantity(type)} (${name})`, { transactionHash: json.hash, type: toQuantity(type) })
    return undefined
  },
  precompiles: () => arbosPrecompiles(),
}
