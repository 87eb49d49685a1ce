/** the decoded call tree as the engine answers it (tracer `callTree`) */
export type { DecodedCallFrame as CallTreeFrame } from '../../engine/types.js'
