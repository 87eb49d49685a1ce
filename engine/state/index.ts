/**
 * The engine's state layer: read-only sources at a fixed block and the per-request overlay the
 * VM runs on. See types.ts for the contracts.
 */
export type { AccountRead, AccountReadResult, AccountState, SourceAccount, StateSource, StateWrites, StorageWrites } from './types.js'
export { MemoryStateSource, type GenesisAccount } from './memoryStateSource.js'
export { OverlayStateManager, PLACEHOLDER_STATE_ROOT } from './overlayStateManager.js'
export { codeHashOf, slotKeyFromBytes, slotKeyFromHex, storageValue, storageValueFromHex, KECCAK256_NULL } from './stateKeys.js'
export { ForkCache, ForkStateSource, type ForkCacheOptions, type PrefetchCall } from './forkStateSource.js'
export { createRpcClient, type RpcClient, type RpcClientOptions, type RpcStats } from '../chain/rpcClient.js'
export { createStateReader } from './stateReader.js'
