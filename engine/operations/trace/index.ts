/** The trace service: /trace/tx, /trace/call and /trace/call-many over a ChainSource. */
export { createTraceService, type TraceService, type TraceServiceOptions, type TraceTransactionOptions } from './traceService.js'
