/** the decoded call tree as the engine answers it (tracer `callTree`), internal frames among the calls */
export type { DecodedCallFrame as CallTreeFrame, DecodedInternalFrame as InternalFrame } from '../../engine/types.js'
