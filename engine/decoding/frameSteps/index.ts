/** Tracer `frameSteps`'s answer: one page of one external frame's steps, checked and shaped. */
export { frameStepsReport } from './frameStepsReport.js'
export type { FrameStep, FrameSteps, RawFrameSteps } from './types.js'
