/** Tracer `gasProfile`'s answer: functions, lines, folded stacks and a speedscope document. */
export { gasProfileReport } from './gasProfileReport.js'
export type { GasProfile, ProfiledFunction, ProfiledLine } from './types.js'
export type { SpeedscopeFile } from './speedscope.js'
