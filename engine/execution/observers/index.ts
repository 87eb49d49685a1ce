/**
 * Observers of a simulation beyond geth's tracers: the transfers tracer (interface §4
 * `transfers`) and truthful asset changes read from state (§4 `assetChanges`).
 */
export { createTransfersTracer, transfersOfLog, type TransfersTracer } from './transfers.js'
export { computeAssetChanges, type AssetChangesInput, type BalanceReader } from './assetChanges.js'
export { createStateBalanceReader } from './stateBalanceReader.js'
