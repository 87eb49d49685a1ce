/**
 * deploy/compose.yaml against the Compose Specification's own JSON schema (vendored:
 * test/fixtures/compose-spec/README.md names its source and commit), validated with ajv; and
 * what the schema cannot see: two instances of the image sharing the one Redis behind the load
 * balancer, configured only by the environment variables the service knows, on a read-only root
 * with the spill directory writable, stopped with more time than the drain's grace.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Ajv } from 'ajv'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { envOverrides } from '../../config/envOverrides.js'

const root = fileURLToPath(new URL('../..', import.meta.url))
const schema = JSON.parse(readFileSync(join(root, 'test/fixtures/compose-spec/compose-spec.json'), 'utf8')) as object
// the schema names draft-07 by an https address ajv does not alias to its own draft-07: compiled
// as draft-07 (ajv's default) without checking the schema itself against that address
const validate = new Ajv({ allErrors: true, strict: false, validateFormats: false, validateSchema: false }).compile(schema)
const text = readFileSync(join(root, 'deploy/compose.yaml'), 'utf8')
const compose = parse(text, { merge: true }) as {
  services: Record<string, Record<string, unknown> & { environment?: Record<string, string> }>
}
const KNOWN = new Set(['APP_ENV', 'NODE_OPTIONS', ...envOverrides.map((o) => o.name)])
const seconds = (d: string) => Number(/^(\d+)s$/.exec(d)![1])

describe('deploy/compose.yaml', () => {
  it('is valid under the Compose Specification schema', () => {
    expect(validate(compose), JSON.stringify(validate.errors, null, 2)).toBe(true)
  })

  it('the schema refuses a file that is not Compose (the check can fail)', () => {
    expect(validate({ services: { sim: { image: 'x', stop_grace: '30s' } } })).toBe(false)
    expect(validate({ ...compose, services: { ...compose.services, lb: { ...compose.services.lb, ports: 8080 } } })).toBe(false)
  })

  it('runs two instances of the image over one Redis behind the load balancer', () => {
    const sims = Object.entries(compose.services).filter(([, s]) => s.image === 'evm-sim-service:latest')
    expect(sims.map(([n]) => n)).toEqual(['sim-1', 'sim-2'])
    const nginx = readFileSync(join(root, 'deploy/nginx.conf'), 'utf8')
    for (const [name, s] of sims) {
      expect(nginx).toContain(`server ${name}:8080`)
      expect(s.environment!.CACHE_URL).toBe('redis://redis:6379/0')
      expect(s.environment!.APP_ENV).toBe('production')
      // the token comes from the environment file, never from this file
      expect(s.environment!.AUTH_TOKEN).toBeUndefined()
      expect(s.env_file).toBe('sim.env')
    }
    expect(compose.services.redis).toBeDefined()
    expect(readFileSync(join(root, 'deploy/sim.env.example'), 'utf8')).toMatch(/^AUTH_TOKEN=$/m)
  })

  it('configures the service only by the variables it reads, on a read-only root, stopped after the grace', () => {
    const sim = compose.services['sim-1']!
    for (const name of Object.keys(sim.environment!)) expect(KNOWN, name).toContain(name)
    const envFile = readFileSync(join(root, 'deploy/sim.env.example'), 'utf8')
    for (const [, name] of envFile.matchAll(/^([A-Z_]+)=/gm)) expect(KNOWN, name).toContain(name)
    expect(sim.read_only).toBe(true)
    expect(sim.tmpfs).toEqual([expect.stringMatching(/^\/tmp:/)])
    expect(seconds(sim.stop_grace_period as string) * 1000).toBeGreaterThan(Number(sim.environment!.SHUTDOWN_GRACE_MS))
  })
})
