/** What every route module receives from `createApp`. */
import type { Engine } from '../../engine/types.js'
import type { ServiceConfig } from '../../config/loadConfig.js'
import type { HttpLogger } from '../httpEnv.js'
import type { ErrorBody } from '../errors/apiError.js'

export interface RouteContext {
  engine: Engine
  config: ServiceConfig
  logger: HttpLogger
  /** anything thrown → the `error` object of a failure envelope (batch items use it) */
  toErrorBody(err: unknown, requestId: string): ErrorBody
}
