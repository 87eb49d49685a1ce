/**
 * The engine's state layer: read-only sources at a fixed block and the per-request overlay the
 * VM runs on. See types.ts for the contracts.
 *
 * Wiring:
 * - devnet: `genesis = MemoryStateSource.fromAlloc(alloc)`; per request
 *   `new OverlayStateManager(layerOfBlock)`; after mining a block
 *   `nextLayer = layerOfBlock.withWrites(overlay.flatten())`.
 * - fork: one `rpc = createRpcClient({ url, timeoutMs })` (engine/upstream/, the transport below state) and one
 *   `fork = new ForkCache({ rpc, chainId, cache })` per upstream; per request
 *   `await fork.prefetch(n, calls, { extraAddresses: [coinbase] })` (cold runs) then
 *   `new OverlayStateManager(fork.at(n, { ttlSeconds }))` (ttl only for blocks near the head).
 * - overrides: `await overlay.applyOverrides(stateOverrides)` before the first tx.
 * - between calls run WITHOUT runTx (evm.runCall), call `overlay.originalStorageCache.clear()`
 *   yourself: runTx does it after every tx, and EIP-2200 originals are per tx.
 */
export type { AccountRead, AccountReadResult, AccountState, SourceAccount, StateSource, StateWrites, StorageWrites } from './types.js'
export { MemoryStateSource, type GenesisAccount } from './memoryStateSource.js'
export { OverlayStateManager, PLACEHOLDER_STATE_ROOT } from './overlayStateManager.js'
export { stateRootOf, TrieRootedOverlay } from './stateRoot.js'
export { codeHashOf, slotKeyFromBytes, slotKeyFromHex, storageValue, storageValueFromHex, KECCAK256_NULL } from './stateKeys.js'
export { ForkCache, ForkStateSource, type ForkCacheOptions, type PrefetchCall } from './forkCache.js'
export { AccessListHints, type AccessList } from './accessListHints.js'
export { createStateReader } from './stateReader.js'
