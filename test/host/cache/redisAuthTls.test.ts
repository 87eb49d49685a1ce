/**
 * `CACHE_URL` with a password (`redis://:pw@…`) and over TLS (`rediss://`), against a real
 * redis-server started with requirepass and a TLS-only port. The TLS client runs as its own
 * process with NODE_EXTRA_CA_CERTS naming the test's self-signed certificate, as an operator
 * would trust a private CA; without it the certificate is refused, never silently accepted.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createRedisCacheStore } from '../../../host/cache/redisCacheStore.js'
import { requireRedisServer, startRedisServer, type RedisServer } from '../../support/redisServer.js'

const hasRedis = requireRedisServer()
const hasOpenssl = spawnSync('sh', ['-c', 'command -v openssl']).status === 0
if (!hasOpenssl) {
  const msg = 'OPENSSL MISSING: the rediss:// test cannot make its certificate (apt-get install openssl)'
  if (process.env.CI === 'true') throw new Error(msg)
  console.warn(`\n!!!!! ${msg} !!!!!\n`)
}

const PASSWORD = 'pw-Zq9!x'

describe.runIf(hasRedis)('redis:// with a password', () => {
  let server: RedisServer
  beforeAll(async () => {
    server = await startRedisServer({ password: PASSWORD })
  })
  afterAll(async () => server?.stop())

  it('authenticates with the password of the URL', async () => {
    const store = createRedisCacheStore({ url: server.url })
    for (let i = 0; i < 40 && !store.ready; i++) await new Promise((r) => setTimeout(r, 50))
    await store.set('k', new Uint8Array([7]), 60)
    expect(await store.get('k')).toEqual(new Uint8Array([7]))
    expect(await store.ping()).toBe(true)
    await store.close()
  })

  it('with a wrong password: degraded (misses, ping false), and the password never logged', async () => {
    const warnings: string[] = []
    const wrong = server.url.replace(encodeURIComponent(PASSWORD), 'not-the-password')
    const store = createRedisCacheStore({ url: wrong, logger: { warn: (o, msg) => void warnings.push(JSON.stringify({ ...o, msg })) } })
    await new Promise((r) => setTimeout(r, 500))
    await store.set('k2', new Uint8Array([1]), 60)
    expect(await store.get('k2')).toBeUndefined()
    expect(await store.ping()).toBe(false)
    expect(warnings.length).toBeGreaterThan(0)
    expect(warnings.join('\n')).not.toContain('not-the-password')
    await store.close()
  })
})

describe.runIf(hasRedis && hasOpenssl)('rediss:// (TLS) with a password', () => {
  let server: RedisServer
  let dir: string
  const roundTrip = (url: string, caFile?: string) => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./fixtures/redisRoundTrip.ts', import.meta.url)), url], {
      encoding: 'utf8',
      env: { ...process.env, NODE_EXTRA_CA_CERTS: caFile ?? '' },
      timeout: 30_000,
    })
    expect(r.status, r.stderr).toBe(0)
    return JSON.parse(r.stdout.trim().split('\n').at(-1)!) as { ping: boolean; value: number[] | null; logs: string[] }
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'redis-tls-'))
    const made = spawnSync('openssl', [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
    ])
    expect(made.status, String(made.stderr)).toBe(0)
    server = await startRedisServer({ password: PASSWORD, tls: { certFile: join(dir, 'cert.pem'), keyFile: join(dir, 'key.pem') } })
  })
  afterAll(async () => {
    await server?.stop()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  it('connects over TLS when the certificate is trusted, and stores and reads values', () => {
    expect(server.url.startsWith('rediss://')).toBe(true)
    const out = roundTrip(server.url, join(dir, 'cert.pem'))
    expect(out).toMatchObject({ ping: true, value: [1, 2, 3] })
  })

  it('refuses an untrusted certificate: degraded, not silently insecure; the password never logged', () => {
    const out = roundTrip(server.url)
    expect(out).toMatchObject({ ping: false, value: null })
    expect(out.logs.length).toBeGreaterThan(0)
    expect(out.logs.join('\n')).not.toContain(PASSWORD)
    expect(out.logs.join('\n')).not.toContain(encodeURIComponent(PASSWORD))
  })
})
