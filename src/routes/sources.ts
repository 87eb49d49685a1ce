/**
 * Contracts' sources (interface §13): POST /v1/sources registers a build-info's contracts on
 * the cache store, so every instance on it shows them in traces wherever their code runs;
 * GET /v1/sources lists what is registered. The body may be as large as sources.max_mb (the
 * service's body limit does not apply here: a build-info is often several MiB) and as deep as a
 * solc AST nests.
 */
import type { OpenAPIHono } from '@hono/zod-openapi'
import { isEngineError } from '../../engine/types.js'
import { joinPath, validationError, type ValidationIssue } from '../errors/apiError.js'
import type { HttpEnv } from '../httpEnv.js'
import { readJson, validate } from '../normalize/parseBody.js'
import { runAt } from '../runAt.js'
import { registeredSourcesEnvelope, registerSourcesRequest } from '../schemas/sources.js'
import type { RouteContext } from './context.js'
import { document } from './document.js'

export const SOURCES_PATH = '/v1/sources'
/** a solc AST nests an expression a level or two per operator: far deeper than any request body */
const BUILD_INFO_MAX_DEPTH = 4096

export function registerSources(app: OpenAPIHono<HttpEnv>, ctx: RouteContext): void {
  document(app, {
    method: 'post',
    path: SOURCES_PATH,
    tags: ['sources'],
    summary: "Register a build-info's contracts",
    description:
      'Every contract with bytecode in the build-info is known from now on by its code, on every instance sharing the cache store: ' +
      'traces show its name, source lines and internal calls wherever it runs. Answers 201. ' +
      'A body that is no build-info, or lacks the bytecode and source-map fields, is a VALIDATION_ERROR naming the path; past sources.max_mb, 413.',
    body: registerSourcesRequest,
    ok: { schema: registeredSourcesEnvelope, description: 'registered (status 201): one entry per contract with bytecode' },
    errors: [400, 413],
  })
  app.post(SOURCES_PATH, async (c) => {
    const req = validate(registerSourcesRequest, await readJson(c, { maxDepth: BUILD_INFO_MAX_DEPTH }))
    const contracts = await ctx.engine.registerSources(runAt(c), req.buildInfo).catch(inBuildInfo)
    return c.json({ success: true, data: { contracts } }, 201)
  })

  document(app, {
    method: 'get',
    path: SOURCES_PATH,
    tags: ['sources'],
    summary: 'The registered contracts',
    ok: { schema: registeredSourcesEnvelope, description: 'every contract registered on the cache store, in the order registered' },
    errors: [],
  })
  app.get(SOURCES_PATH, async (c) => c.json({ success: true, data: { contracts: await ctx.engine.listSources(runAt(c)) } }, 200))
}

/** the engine names paths inside the build-info; the caller sent them under `buildInfo` */
function inBuildInfo(e: unknown): never {
  const issues = isEngineError(e) && e.code === 'VALIDATION_ERROR' ? (e.details?.issues as ValidationIssue[] | undefined) : undefined
  if (!issues) throw e
  throw validationError(issues.map((i) => ({ path: joinPath('buildInfo', i.path), message: i.message })))
}
