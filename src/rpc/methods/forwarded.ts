/**
 * Every read method of the chain as an entry: the engine answers it — the state reads from its own
 * state (their params checked here: src/rpc/params/readParams.ts), the rest as the chain's node
 * answers them, the devnet's history or the upstream node with immutable answers cached, params
 * as sent. The list is the engine's allow-list (READ_METHODS), entry for entry. By-name params
 * are refused by the door before this.
 */
import { READ_METHODS } from '../../../engine/types.js'
import { accountReadParams, asSent, storageReadParams } from '../params/readParams.js'
import { type AnyRpcMethod, method } from './table.js'

/** a read, its params checked by `params` (or by the chain that answers it) and handed to the engine as sent */
const read = (name: string, params: (p: unknown[]) => unknown[] = asSent) => method([name], params, (p, ctx) => ctx.engine.readChain(ctx.at, name, p))

export const READ_ENTRIES: readonly AnyRpcMethod[] = [
  read('eth_chainId'),
  read('eth_blockNumber'),
  read('eth_getBlockByNumber'),
  read('eth_getBlockByHash'),
  read('eth_getTransactionByHash'),
  read('eth_getTransactionByBlockHashAndIndex'),
  read('eth_getTransactionByBlockNumberAndIndex'),
  read('eth_getRawTransactionByHash'),
  read('eth_getTransactionReceipt'),
  read('eth_getBlockReceipts'),
  read('eth_getBlockTransactionCountByHash'),
  read('eth_getBlockTransactionCountByNumber'),
  read('eth_getUncleCountByBlockHash'),
  read('eth_getUncleCountByBlockNumber'),
  read('eth_getUncleByBlockHashAndIndex'),
  read('eth_getUncleByBlockNumberAndIndex'),
  read('eth_getLogs'),
  read('eth_getBalance', accountReadParams),
  read('eth_getCode', accountReadParams),
  read('eth_getStorageAt', storageReadParams),
  read('eth_getTransactionCount', accountReadParams),
  read('eth_getProof'),
  read('eth_feeHistory'),
  read('eth_gasPrice'),
  read('eth_maxPriorityFeePerGas'),
  read('eth_blobBaseFee'),
  read('eth_syncing'),
  read('eth_accounts'),
  read('eth_mining'),
  read('eth_hashrate'),
  read('eth_coinbase'),
  read('net_version'),
  read('net_listening'),
  read('net_peerCount'),
  read('web3_clientVersion'),
  read('web3_sha3'),
]

// the engine reads exactly these: one it reads without an entry here would go unserved
const unlisted = [...READ_METHODS].filter((name) => !READ_ENTRIES.some((e) => e.names.includes(name)))
if (unlisted.length > 0 || READ_ENTRIES.length !== READ_METHODS.size) throw new Error(`the read entries and READ_METHODS differ: ${unlisted.join(', ')}`)
