/**
 * Methods that send, sign, mine or administer a node: refused with -32601 and a message that says
 * why (this endpoint simulates and never sends), instead of the plain "does not exist". The
 * refusal is informative only: what is not in the method table is never forwarded anyway.
 */
import { RpcError } from '../rpcError.js'

const REFUSED_PREFIXES = ['personal_', 'admin_', 'miner_', 'anvil_', 'hardhat_', 'evm_', 'clique_', 'txpool_', 'engine_', 'ganache_', 'tenderly_']
const REFUSED_METHODS = new Set([
  'eth_sendRawTransaction',
  'eth_sendTransaction',
  'eth_sendRawTransactionSync',
  'eth_sendBundle',
  'eth_sendPrivateTransaction',
  'eth_sign',
  'eth_signTransaction',
  'eth_signTypedData',
  'eth_signTypedData_v3',
  'eth_signTypedData_v4',
  'eth_submitWork',
  'eth_submitHashrate',
  'debug_setHead',
  'debug_chaindbCompact',
  'debug_setGCPercent',
  'debug_startCPUProfile',
  'debug_writeBlockProfile',
])

export function isRefused(method: string): boolean {
  return REFUSED_METHODS.has(method) || REFUSED_PREFIXES.some((p) => method.startsWith(p))
}

export function refusal(method: string): RpcError {
  return new RpcError(-32601, `the method ${method} is not available: this endpoint simulates and never sends transactions or changes a node`)
}
