/**
 * The raw page of a run (engine/execution/observers/frameSteps.ts) → tracer `frameSteps`'s answer,
 * or the VALIDATION_ERROR of a request that named no frame with steps: a path past the calls the
 * run made, a frame that ran no code (a precompile, an account without code, a SELFDESTRUCT, a call
 * that failed before its first step), a `fromStep` past the frame's last step. Which frames exist
 * is known only once the run is done, so these are checked here, not with the request.
 */
import { EngineError } from '../../platform/errors.js'
import type { FrameStepsConfig } from '../../../tracers/config.js'
import { frameFiles } from './frameFiles.js'
import type { FrameSteps, FrameStepsFrame, RawFrameSteps } from './types.js'

const shown = (path: readonly number[]): string => `[${path.join(', ')}]`

function invalid(field: 'frame' | 'fromStep', message: string, suggestion: string): EngineError {
  const path = `tracerConfig.frameSteps.${field}`
  return new EngineError('VALIDATION_ERROR', `${path}: ${message}`, { issues: [{ path, message }] }, suggestion)
}

/** the error of a path that names no frame of the run */
function noFrame(path: readonly number[], reached: RawFrameSteps['reached']): EngineError {
  const parent = path.slice(0, reached.length)
  return invalid(
    'frame',
    `the run has no frame ${shown(path)}: frame ${shown(parent)} made ${reached.calls} call${reached.calls === 1 ? '' : 's'}`,
    "name a frame by its indices in the callTracer's `calls` arrays ([] is the top frame)",
  )
}

export function frameStepsReport(raw: RawFrameSteps, config: FrameStepsConfig): FrameSteps {
  const path = config.frame
  const fromStep = config.fromStep ?? 0
  const frame = raw.frame
  if (frame === undefined) throw noFrame(path, raw.reached)
  if (frame.type === 'SELFDESTRUCT' || raw.totalSteps === 0)
    throw invalid(
      'frame',
      `frame ${shown(path)} (${frame.type} to ${frame.address}) ran no code: a precompile, an account without code, or a call that failed before its first step`,
      'step through a frame that ran code',
    )
  if (fromStep >= raw.totalSteps)
    throw invalid('fromStep', `${fromStep} is past the frame's last step (it has ${raw.totalSteps})`, `ask from a step below ${raw.totalSteps}`)
  const end = fromStep + raw.steps.length
  const contract = frame.contract
  const described: FrameStepsFrame = { path, type: frame.type, address: frame.address, depth: frame.depth }
  if (contract) described.contract = { name: contract.name, file: contract.file }
  return {
    frame: described,
    totalSteps: raw.totalSteps,
    fromStep,
    nextStep: end < raw.totalSteps ? end : null,
    steps: raw.steps,
    ...(config.withFiles === true && { files: contract ? frameFiles(contract, frame.creation) : [] }),
  }
}
