/** The one way into a run (openRun, openReplay), the call defaults per operation, and their parts. */
export { openRun, type OpenedRun, type RunRequest } from './openRun.js'
export { openReplay, type OpenedReplay, type ReplayOverrides } from './openReplay.js'
export { withCallDefaults, defaultGas, GAS_DEFAULTS, type CallOperation, type GasLimits } from './callDefaults.js'
export { executionContext, applyBlockOverrides } from './blockEnvironment.js'
export { applyStateOverrides } from './stateOverrides.js'
export type { RunDeps } from './deps.js'
export { openBlock, replayUpTo, advance, blockStart, resolveBlockRef, type OpenedBlock, type BlockProgress } from './openBlock.js'
