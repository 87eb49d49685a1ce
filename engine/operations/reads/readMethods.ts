/**
 * The allow-list of chain reads the engine passes to the chain source (the upstream node on a
 * fork). Only methods that read: nothing here can sign, send, mine, change a node's settings or
 * open server-side state (filters, subscriptions). A method not listed is never forwarded.
 * eth_call, eth_estimateGas and eth_createAccessList are not reads of the upstream: the engine
 * runs them itself.
 */
export const READ_METHODS: ReadonlySet<string> = new Set([
  'eth_chainId',
  'eth_blockNumber',
  'eth_getBlockByNumber',
  'eth_getBlockByHash',
  'eth_getTransactionByHash',
  'eth_getTransactionByBlockHashAndIndex',
  'eth_getTransactionByBlockNumberAndIndex',
  'eth_getRawTransactionByHash',
  'eth_getTransactionReceipt',
  'eth_getBlockReceipts',
  'eth_getBlockTransactionCountByHash',
  'eth_getBlockTransactionCountByNumber',
  'eth_getUncleCountByBlockHash',
  'eth_getUncleCountByBlockNumber',
  'eth_getUncleByBlockHashAndIndex',
  'eth_getUncleByBlockNumberAndIndex',
  'eth_getLogs',
  'eth_getBalance',
  'eth_getCode',
  'eth_getStorageAt',
  'eth_getTransactionCount',
  'eth_getProof',
  'eth_feeHistory',
  'eth_gasPrice',
  'eth_maxPriorityFeePerGas',
  'eth_blobBaseFee',
  'eth_syncing',
  'eth_accounts',
  'eth_mining',
  'eth_hashrate',
  'eth_coinbase',
  'net_version',
  'net_listening',
  'net_peerCount',
  'web3_clientVersion',
  'web3_sha3',
])

/** state reads at a block: served from the engine's own state (the fork cache), never forwarded as is */
export const STATE_READS = {
  eth_getBalance: 1,
  eth_getCode: 1,
  eth_getTransactionCount: 1,
  eth_getStorageAt: 2,
} as const satisfies Record<string, number>
