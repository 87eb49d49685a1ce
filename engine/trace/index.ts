/** The trace service (issue 4): /trace/tx, /trace/call and /trace/call-many over a ChainSource. */
export { createTraceService, type TraceService, type TraceServiceOptions, type TraceTransactionOptions } from './traceService.js'
export { applyStateOverrides } from './stateOverrides.js'
export { applyBlockOverrides, executionContext } from './blockEnvironment.js'
