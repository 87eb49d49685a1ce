/**
 * `evm-sim/client`: a typed client of the service's REST API — openapi-fetch over the types
 * openapi-typescript generates from the service's OpenAPI document (client/schema.ts). Paths,
 * request bodies and answers are checked by the compiler; examples per endpoint group in
 * docs/client.md.
 *
 * @example
 * import { createSimClient } from 'evm-sim/client'
 * const sim = createSimClient({ baseUrl: 'http://127.0.0.1:8545' })
 * const { data, error } = await sim.POST('/v1/simulate', { body: { params: { calls: [{ from, to, data }] } } })
 */
import createClient, { type Client, type ClientOptions } from 'openapi-fetch'
import type { paths } from './schema.js'

export type { components, operations, paths } from './schema.js'

export interface SimClientOptions extends ClientOptions {
  /** the service's origin, e.g. `http://127.0.0.1:8080` (the paths carry `/v1`) */
  baseUrl: string
  /** the service's token (`api.auth_token`), sent as `Authorization: Bearer …` */
  token?: string
}

export type SimClient = Client<paths>

export function createSimClient({ token, headers, ...opts }: SimClientOptions): SimClient {
  return createClient<paths>({ ...opts, headers: { ...(token && { authorization: `Bearer ${token}` }), ...(headers as Record<string, string> | undefined) } })
}
