/**
 * Request `tracerConfig` → engine `TracerConfig` (interface §8): none given
 * means the call tracer; `true` enables a tracer with default options, `false` leaves it out;
 * `withLogs` and geth's `withLog` both become the engine's `withLog`.
 */
import type { TracerConfig } from '../../engine/types.js'
import type { z } from '@hono/zod-openapi'
import type { tracerConfig as tracerConfigSchema } from '../schemas/trace.js'
import { toCallTreeConfig } from './abis.js'

type Input = z.output<typeof tracerConfigSchema> | undefined

export function toTracerConfig(input: Input): TracerConfig {
  const out: TracerConfig = {}
  const options = <T extends object>(v: boolean | T | undefined): T | undefined => (v === undefined || v === false ? undefined : v === true ? ({} as T) : v)

  const call = options(input?.callTracer)
  if (call) {
    const { withLogs, withLog, onlyTopCall } = call
    out.callTracer = {
      ...(onlyTopCall !== undefined && { onlyTopCall }),
      ...((withLogs !== undefined || withLog !== undefined) && { withLog: Boolean(withLogs ?? withLog) }),
    }
  }
  const prestate = options(input?.prestateTracer)
  if (prestate) out.prestateTracer = { ...prestate }
  const structLogger = options(input?.structLogger)
  if (structLogger) out.structLogger = { ...structLogger }
  if (input?.['4byteTracer'] === true) out['4byteTracer'] = true
  const callTree = options(input?.callTree)
  if (callTree) out.callTree = toCallTreeConfig(callTree, 'tracerConfig.callTree')
  if (input?.gasProfile === true) out.gasProfile = true
  if (input?.frameSteps) out.frameSteps = { ...input.frameSteps }

  if (Object.keys(out).length === 0) out.callTracer = {}
  return out
}
